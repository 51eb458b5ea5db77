/* test-tools-paths.c: where the engine's tools may reach, on real
 * temporary directories: paths resolved inside the working directory, the
 * tools refusing the outside (unless allowed), the race of a check and its
 * use as an attacker would run it; the tool context, safety and effects,
 * the registry, the plan tool and the result helpers.  Uses
 * pd-test-tools.h, as test-tools.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#define _GNU_SOURCE

#include "pd-test-tools.h"

/* Path confinement */

static void
test_paths_resolve (Fixture       *f,
                    gconstpointer  data)
{
  const char *wd = pd_tool_context_get_working_dir (f->context);
  g_autofree char *in_link = fixture_path (f, "in-link");
  g_autofree char *out_link = fixture_path (f, "out-link");
  g_autofree char *dangling = fixture_path (f, "dangling");
  g_autofree char *sub = fixture_path (f, "sub");
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;
  g_autofree char *abs_inside = NULL;
  g_autofree char *abs_outside = NULL;
  g_autoptr(GError) error = NULL;
  char *r;

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_cmpint (symlink ("sub", in_link), ==, 0);
  g_assert_cmpint (symlink (f->outside, out_link), ==, 0);
  g_assert_cmpint (symlink ("no-such-target", dangling), ==, 0);

  /* Inside: relative, with dot-dot that stays in, through an inner link,
   * absolute, and not yet existing. */
  got = pd_tool_context_resolve_path (f->context, "in-link/new/../x.txt", &error);
  g_assert_no_error (error);
  expected = g_build_filename (wd, "sub", "x.txt", NULL);
  g_assert_cmpstr (got, ==, expected);

  abs_inside = g_build_filename (wd, "sub", NULL);
  r = pd_tool_context_resolve_path (f->context, abs_inside, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (r, ==, abs_inside);
  g_free (r);

  r = pd_tool_context_resolve_path (f->context, ".", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (r, ==, wd);
  g_free (r);

  /* Outside, every way round. */
  {
    const char *escapes[] = {
      "../x", "../outside/secret.txt", "sub/../../x", "new/dir/../../../x",
      "out-link/secret.txt", "out-link/new.txt", "in-link/../../outside", "/etc/passwd",
    };

    for (guint i = 0; i < G_N_ELEMENTS (escapes); i++)
      {
        r = pd_tool_context_resolve_path (f->context, escapes[i], &error);
        g_assert_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_OUTSIDE);
        g_assert_null (r);
        g_assert_nonnull (strstr (error->message, "is outside the working directory"));
        /* Where a link leads is not told to the model (it said "it
         * resolves to '/…/outside/secret.txt'", tried as an attacker would). */
        g_assert_null (strstr (error->message, "resolves"));
        g_assert_true (strstr (escapes[i], "outside") != NULL || strstr (error->message, "outside/") == NULL);
        g_clear_error (&error);
      }
  }

  /* A dangling link is never followed, even inside; it is refused as a
   * link out is (one answer: which names exist outside is not told). */
  r = pd_tool_context_resolve_path (f->context, "dangling", &error);
  g_assert_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_OUTSIDE);
  g_assert_null (r);
  g_clear_error (&error);

  r = pd_tool_context_resolve_path (f->context, "", &error);
  g_assert_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_INVALID_PATH);
  g_assert_null (r);
  g_clear_error (&error);

  /* The user may allow it. */
  pd_tool_context_set_allow_outside (f->context, TRUE);
  abs_outside = g_build_filename (f->root, "outside", "secret.txt", NULL);
  r = pd_tool_context_resolve_path (f->context, "out-link/secret.txt", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (r, ==, abs_outside);
  g_free (r);
}

static void
test_paths_tools_refuse (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdTool) read_file = pd_read_file_tool_new ();
  g_autoptr(PdTool) write_file = pd_write_file_tool_new ();
  g_autoptr(PdTool) edit_file = pd_edit_file_tool_new ();
  g_autoptr(PdTool) list_dir = pd_list_dir_tool_new ();
  g_autoptr(PdTool) grep = pd_grep_tool_new ();
  g_autofree char *out_link = fixture_path (f, "out-link");
  g_autofree char *secret = g_build_filename (f->outside, "secret.txt", NULL);
  g_autofree char *planted = g_build_filename (f->outside, "planted.txt", NULL);
  g_autofree char *abs_args = args_json ("path", secret, NULL, NULL);
  g_autofree char *secret_after = NULL;
  struct
  {
    PdTool     *tool;
    const char *args;
  } cases[] = {
    { read_file, "{\"path\":\"../outside/secret.txt\"}" },
    { read_file, "{\"path\":\"out-link/secret.txt\"}" },
    { read_file, abs_args },
    { write_file, "{\"path\":\"../outside/planted.txt\",\"content\":\"x\"}" },
    { write_file, "{\"path\":\"out-link/planted.txt\",\"content\":\"x\"}" },
    { edit_file, "{\"path\":\"out-link/secret.txt\",\"old_string\":\"top\",\"new_string\":\"no\"}" },
    { list_dir, "{\"path\":\"..\"}" },
    { grep, "{\"pattern\":\"secret\",\"path\":\"out-link\"}" },
  };

  g_assert_cmpint (symlink (f->outside, out_link), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PdToolResult) result = call (cases[i].tool, f->context, cases[i].args);

      g_assert_false (result->ok);
      g_assert_nonnull (strstr (result->content, "is outside the working directory"));
      g_assert_null (strstr (result->content, "top secret"));
    }

  g_assert_false (g_file_test (planted, G_FILE_TEST_EXISTS));
  secret_after = read_text (secret);
  g_assert_cmpstr (secret_after, ==, "top secret\n");
}

/* read_file, edit_file, grep and list_dir open what they are given through
 * one helper: each names a missing file the same way, and none waits on a
 * FIFO that has no writer (opened O_NONBLOCK, then refused or skipped for
 * what it is). */
static void
test_paths_tools_open_alike (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(PdTool) read_file = pd_read_file_tool_new ();
  g_autoptr(PdTool) edit_file = pd_edit_file_tool_new ();
  g_autoptr(PdTool) list_dir = pd_list_dir_tool_new ();
  g_autoptr(PdTool) grep = pd_grep_tool_new ();
  g_autofree char *fifo = fixture_path (f, "pipe");
  struct
  {
    PdTool     *tool;
    const char *args;
    gboolean    ok;
    const char *content;
  } cases[] = {
    { read_file, "{\"path\":\"gone.txt\"}", FALSE, "read_file: 'gone.txt' does not exist" },
    { edit_file, "{\"path\":\"gone.txt\",\"old_string\":\"a\",\"new_string\":\"b\"}", FALSE,
      "edit_file: 'gone.txt' does not exist" },
    { list_dir, "{\"path\":\"gone.txt\"}", FALSE, "list_dir: 'gone.txt' does not exist" },
    { grep, "{\"pattern\":\"x\",\"path\":\"gone.txt\"}", FALSE, "grep: 'gone.txt' does not exist" },
    { read_file, "{\"path\":\"pipe\"}", FALSE, "read_file: 'pipe' is not a regular file" },
    { edit_file, "{\"path\":\"pipe\",\"old_string\":\"a\",\"new_string\":\"b\"}", FALSE,
      "edit_file: 'pipe' is not a regular file" },
    { list_dir, "{\"path\":\"pipe\"}", FALSE, "list_dir: 'pipe' is not a directory (use read_file)" },
    { grep, "{\"pattern\":\"x\",\"path\":\"pipe\"}", TRUE, NULL },
  };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PdToolResult) result = call (cases[i].tool, f->context, cases[i].args);

      g_assert_cmpint (result->ok, ==, cases[i].ok);
      if (cases[i].content != NULL)
        g_assert_cmpstr (result->content, ==, cases[i].content);
    }
}

static void
test_paths_allow_outside (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PdTool) read_file = pd_read_file_tool_new ();
  g_autoptr(PdToolResult) result = NULL;

  pd_tool_context_set_allow_outside (f->context, TRUE);
  g_assert_true (pd_tool_context_get_allow_outside (f->context));
  result = call (read_file, f->context, "{\"path\":\"../outside/secret.txt\"}");
  g_assert_true (result->ok);
  g_assert_cmpstr (result->content, ==, "top secret\n");
}

/* Allowed outside, write_file makes the missing directories there as the
 * user would, through the same opening as a write inside. */
static void
test_paths_allow_outside_write (Fixture       *f,
                                gconstpointer  data)
{
  g_autoptr(PdTool) write_file = pd_write_file_tool_new ();
  g_autoptr(PdToolResult) refused = NULL;
  g_autoptr(PdToolResult) result = NULL;
  g_autofree char *made = g_build_filename (f->outside, "made", "deep", "new.txt", NULL);
  g_autofree char *contents = NULL;

  refused = call (write_file, f->context, "{\"path\":\"../outside/made/deep/new.txt\",\"content\":\"x\"}");
  g_assert_false (refused->ok);
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));

  pd_tool_context_set_allow_outside (f->context, TRUE);
  result = call (write_file, f->context, "{\"path\":\"../outside/made/deep/new.txt\",\"content\":\"x\"}");
  g_assert_true (result->ok);
  g_assert_true (g_file_get_contents (made, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "x");
}

static void
test_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdToolContext) context = NULL;
  PdToolContext *missing;

  missing = pd_tool_context_new ("/nonexistent/pd-tools-test", &error);
  g_assert_null (missing);
  g_assert_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_INVALID_PATH);
  g_clear_error (&error);

  context = pd_tool_context_new ("/tmp/../tmp/.", &error);
  g_assert_no_error (error);
  g_assert_true (g_path_is_absolute (pd_tool_context_get_working_dir (context)));
  g_assert_null (strstr (pd_tool_context_get_working_dir (context), ".."));
  g_assert_cmpuint (pd_tool_context_get_shell_timeout_ms (context), ==, 120000);
  g_assert_cmpuint (pd_tool_context_get_output_cap (context), ==, 64 * 1024);
  g_assert_false (pd_tool_context_get_allow_outside (context));

  pd_tool_context_set_shell_timeout_ms (context, 24 * 3600 * 1000);
  g_assert_cmpuint (pd_tool_context_get_shell_timeout_ms (context), ==, PD_TOOL_MAX_SHELL_TIMEOUT_MS);
  pd_tool_context_set_shell_timeout_ms (context, 0);
  g_assert_cmpuint (pd_tool_context_get_shell_timeout_ms (context), ==, 120000);
}

/* Safety classes, effects, schemas */

static void
test_safety_and_effects (void)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 2000);
  g_autoptr(PdToolRegistry) registry = pd_tool_registry_new ();
  g_autoptr(GPtrArray) tools = NULL;
  static const struct
  {
    const char    *name;
    PdToolSafety   safety;
    PdToolEffects  effects;
  } expected[] = {
    { "read_file", PD_TOOL_READ_ONLY, PD_TOOL_EFFECTS_READ },
    { "list_dir", PD_TOOL_READ_ONLY, PD_TOOL_EFFECTS_READ },
    { "grep", PD_TOOL_READ_ONLY, PD_TOOL_EFFECTS_READ },
    { "write_file", PD_TOOL_MUTATING, PD_TOOL_EFFECTS_WRITE },
    { "edit_file", PD_TOOL_MUTATING, PD_TOOL_EFFECTS_WRITE },
    { "shell", PD_TOOL_MUTATING, PD_TOOL_EFFECTS_UNKNOWN },
    { "exit_plan_mode", PD_TOOL_SAFE, PD_TOOL_EFFECTS_READ },
    { "plan", PD_TOOL_SAFE, PD_TOOL_EFFECTS_READ },
  };

  pd_tool_registry_add_builtins (registry, store);
  tools = pd_tool_registry_list (registry);
  g_assert_cmpuint (tools->len, ==, G_N_ELEMENTS (expected));

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      PdTool *tool = g_ptr_array_index (tools, i);
      g_autoptr(JsonObject) args = json_object_new ();

      g_assert_cmpstr (pd_tool_get_name (tool), ==, expected[i].name);
      g_assert_true (pd_tool_registry_lookup (registry, expected[i].name) == tool);
      g_assert_cmpint (pd_tool_get_safety (tool), ==, expected[i].safety);
      g_assert_cmpint (pd_tool_get_effects (tool, args), ==, expected[i].effects);
    }

  g_assert_null (pd_tool_registry_lookup (registry, "rm"));
  g_assert_cmpstr (pd_tool_safety_to_string (PD_TOOL_SAFE), ==, "safe");
  g_assert_cmpstr (pd_tool_safety_to_string (PD_TOOL_MUTATING), ==, "mutating");
}

static void
test_registry (void)
{
  g_autoptr(PdToolRegistry) registry = pd_tool_registry_new ();
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdTool) another_shell = pd_shell_tool_new ();
  g_autoptr(PdTool) grep = pd_grep_tool_new ();
  g_autoptr(JsonArray) array = NULL;

  g_assert_true (pd_tool_registry_add (registry, shell));
  g_assert_true (pd_tool_registry_add (registry, grep));
  g_assert_false (pd_tool_registry_add (registry, another_shell));
  g_assert_cmpuint (pd_tool_registry_get_n_tools (registry), ==, 2);
  g_assert_true (pd_tool_registry_lookup (registry, "shell") == shell);

  /* Without a store there is no plan tool. */
  {
    g_autoptr(PdToolRegistry) plain = pd_tool_registry_new ();

    pd_tool_registry_add_builtins (plain, NULL);
    /* exit_plan_mode is always there: the tool list never changes with plan mode. */
    g_assert_cmpuint (pd_tool_registry_get_n_tools (plain), ==, 7);
    g_assert_null (pd_tool_registry_lookup (plain, "plan"));
    g_assert_nonnull (pd_tool_registry_lookup (plain, "exit_plan_mode"));
  }

  array = pd_tool_registry_to_openai_json (registry);
  g_assert_cmpuint (json_array_get_length (array), ==, 2);

  for (guint i = 0; i < 2; i++)
    {
      JsonObject *entry = json_array_get_object_element (array, i);
      JsonObject *function = json_object_get_object_member (entry, "function");
      JsonObject *parameters = json_object_get_object_member (function, "parameters");

      g_assert_cmpstr (json_object_get_string_member (entry, "type"), ==, "function");
      g_assert_cmpstr (json_object_get_string_member (function, "name"), ==, i == 0 ? "shell" : "grep");
      g_assert_true (strlen (json_object_get_string_member (function, "description")) > 20);
      g_assert_cmpstr (json_object_get_string_member (parameters, "type"), ==, "object");
      g_assert_true (json_object_has_member (json_object_get_object_member (parameters, "properties"),
                                             i == 0 ? "command" : "pattern"));
    }
}

/* plan */

static void
test_plan_tool (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 2000);
  g_autoptr(PdTool) plan = pd_plan_tool_new (store);
  g_autoptr(JsonNode) parameters = pd_tool_get_parameters (plan);
  g_autoptr(JsonNode) openai = pd_tool_to_openai_json (plan);
  g_autoptr(PdToolResult) created = NULL;
  g_autoptr(PdToolResult) completed = NULL;
  g_autoptr(PdToolResult) got = NULL;
  g_autoptr(PdToolResult) rejected = NULL;
  g_autoptr(PdToolResult) unknown = NULL;
  JsonObject *properties;
  JsonArray *verbs;

  g_assert_true (pd_plan_tool_get_store (PD_PLAN_TOOL (plan)) == store);
  g_assert_true (g_str_has_prefix (pd_tool_get_description (plan), "Maintain your task plan. "));
  g_assert_true (g_str_has_suffix (pd_tool_get_description (plan), "Plans without checks remain advisory."));
  properties = json_object_get_object_member (json_node_get_object (parameters), "properties");
  verbs = json_object_get_array_member (json_object_get_object_member (properties, "verb"), "enum");
  g_assert_cmpuint (json_array_get_length (verbs), ==, 5);
  g_assert_cmpstr (json_array_get_string_element (verbs, 4), ==, "get");
  g_assert_true (json_object_has_member (properties, "operations"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_node_get_object (openai), "function"), "name"), ==, "plan");

  created = call (plan, f->context,
                  "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"Do A\"},{\"id\":\"b\",\"title\":\"Do B\"}]}");
  g_assert_true (created->ok);
  g_assert_true (g_str_has_prefix (created->content, "[Current plan: v1 "));
  g_assert_cmpint (pd_plan_store_get_version (store), ==, 1);

  completed = call (plan, f->context, "{\"verb\":\"complete\",\"step_id\":\"a\"}");
  g_assert_true (completed->ok);
  g_assert_nonnull (strstr (completed->content, "a [done] Do A"));

  got = call (plan, f->context, "{\"verb\":\"get\"}");
  g_assert_cmpstr (got->content, ==, completed->content);

  rejected = call (plan, f->context, "{\"verb\":\"complete\",\"step_id\":\"zz\"}");
  g_assert_false (rejected->ok);
  g_assert_true (g_str_has_prefix (rejected->content, "plan: complete: unknown step id"));

  unknown = call (plan, f->context, "{\"verb\":\"bogus\"}");
  g_assert_false (unknown->ok);
  g_assert_true (g_str_has_prefix (unknown->content, "plan: unknown verb"));
  g_assert_cmpint (pd_plan_store_get_version (store), ==, 2);
}


/* The race of a path check and its use, as an attacker would run it: a
 * thread swaps the directory "d" of the working directory with a link to
 * the outside folder (renameat2 RENAME_EXCHANGE, so "d" is always one or
 * the other) while the file tools work on paths through "d".  Every call
 * either works inside or fails; none reads, lists, searches or changes
 * anything outside. */
typedef struct
{
  char *wd;
  gint  stop;
  gint  swaps;   /* atomic: the calls' thread reads it while it grows */
} Racer;

static gpointer
race_swap (gpointer data)
{
  Racer *racer = data;
  g_autofree char *d = g_build_filename (racer->wd, "d", NULL);
  g_autofree char *alt = g_build_filename (racer->wd, "d.alt", NULL);

  while (!g_atomic_int_get (&racer->stop))
    {
      if (renameat2 (AT_FDCWD, d, AT_FDCWD, alt, RENAME_EXCHANGE) == 0)
        g_atomic_int_inc (&racer->swaps);
      /* valgrind runs one thread at a time: a tight loop would starve the
       * calls it races with. */
      if (RUNNING_ON_VALGRIND)
        g_usleep (200);
    }

  return NULL;
}

static void
race_tools (Fixture  *f,
            gboolean  walk)
{
  g_autoptr(PdTool) read_file = pd_read_file_tool_new ();
  g_autoptr(PdTool) write_file = pd_write_file_tool_new ();
  g_autoptr(PdTool) edit_file = pd_edit_file_tool_new ();
  g_autoptr(PdTool) list_dir = pd_list_dir_tool_new ();
  g_autoptr(PdTool) grep = pd_grep_tool_new ();
  g_autofree char *inside = fixture_path (f, "d/secret.txt");
  g_autofree char *inside_edit = fixture_path (f, "d/edit.txt");
  g_autofree char *outside_edit = g_build_filename (f->outside, "edit.txt", NULL);
  g_autofree char *outside_only = g_build_filename (f->outside, "outside-only.txt", NULL);
  g_autofree char *link = fixture_path (f, "d.alt");
  g_autofree char *edited = NULL;
  g_autoptr(GDir) dir = NULL;
  Racer racer = { 0 };
  GThread *thread;
  guint escapes = 0;
  guint read_escapes = 0;
  guint list_escapes = 0;
  guint grep_escapes = 0;
  guint inside_ok = 0;
  const char *name;
  const gint min_swaps = RUNNING_ON_VALGRIND ? 1 : 100;

  write_text (inside, "inside\n");
  write_text (inside_edit, "marker\n");
  write_text (outside_edit, "marker\n");
  write_text (outside_only, "outside\n");
  g_assert_cmpint (symlink (f->outside, link), ==, 0);

  _pd_tool_set_force_walk (walk);
  racer.wd = f->wd;
  thread = g_thread_new ("racer", race_swap, &racer);

  /* Under valgrind every call is some fifty times slower; the plain run is
   * the one that proves the race (it found escapes in every run before).
   * The calls go on until the racer has swapped enough times as well, so
   * a busy machine (or valgrind's one-thread-at-a-time scheduling) that
   * gives the racer few turns makes the race longer, never void. */
  for (guint i = 0;
       i < (RUNNING_ON_VALGRIND ? 60 : 1500) || g_atomic_int_get (&racer.swaps) <= min_swaps;
       i++)
    {
      g_autoptr(PdToolResult) r = call (read_file, f->context, "{\"path\":\"d/secret.txt\"}");
      g_autoptr(PdToolResult) w = call (write_file, f->context, "{\"path\":\"d/written.txt\",\"content\":\"w\"}");
      g_autoptr(PdToolResult) e = call (edit_file, f->context,
                                        "{\"path\":\"d/edit.txt\",\"old_string\":\"marker\",\"new_string\":\"marker\\n\"}");
      g_autoptr(PdToolResult) l = call (list_dir, f->context, "{\"path\":\"d\"}");
      g_autoptr(PdToolResult) g = call (grep, f->context, "{\"pattern\":\"top secret|outside\",\"path\":\"d\"}");

      if (strstr (r->content, "top secret") != NULL)
        read_escapes++;
      else if (r->ok)
        inside_ok++;
      if (strstr (l->content, "outside-only") != NULL)
        list_escapes++;
      if (strstr (g->content, "top secret") != NULL || strstr (g->content, "outside-only") != NULL)
        grep_escapes++;
    }

  g_atomic_int_set (&racer.stop, TRUE);
  g_thread_join (thread);

  /* With the race over and "d" a directory again, the same call works:
   * the refusals above were the race's, not the helper's. */
  {
    g_autofree char *d = fixture_path (f, "d");
    g_autoptr(PdToolResult) r = NULL;
    struct stat st;

    g_assert_cmpint (lstat (d, &st), ==, 0);
    if (S_ISLNK (st.st_mode))
      g_assert_cmpint (renameat2 (AT_FDCWD, d, AT_FDCWD, link, RENAME_EXCHANGE), ==, 0);
    r = call (read_file, f->context, "{\"path\":\"d/secret.txt\"}");
    g_assert_true (r->ok);
    g_assert_cmpstr (r->content, ==, "inside\n");
  }
  _pd_tool_set_force_walk (FALSE);
  g_test_message ("%d swaps, %u reads inside; escapes: %u reads, %u listings, %u searches",
                  g_atomic_int_get (&racer.swaps), inside_ok, read_escapes, list_escapes, grep_escapes);
  escapes = read_escapes + list_escapes + grep_escapes;

  /* Nothing written or edited outside, and nothing read from there. */
  dir = g_dir_open (f->outside, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (strcmp (name, "secret.txt") != 0 && strcmp (name, "edit.txt") != 0 &&
        strcmp (name, "outside-only.txt") != 0)
      {
        g_test_message ("written outside: %s", name);
        escapes++;
      }
  edited = read_text (outside_edit);
  if (strcmp (edited, "marker\n") != 0)
    {
      g_test_message ("edited outside: %s", edited);
      escapes++;
    }

  g_assert_cmpint (g_atomic_int_get (&racer.swaps), >, min_swaps);
  g_assert_cmpuint (escapes, ==, 0);
}

static void
test_paths_race_openat2 (Fixture       *f,
                         gconstpointer  data)
{
  race_tools (f, FALSE);
}

static void
test_paths_race_walk (Fixture       *f,
                      gconstpointer  data)
{
  race_tools (f, TRUE);
}

/* The built-ins are the rows of one table, registered in its order; each
 * instance holds its own state. */
static void
test_builtin_table (void)
{
  static const char * const names[] = {
    "read_file", "list_dir", "grep", "write_file", "edit_file", "shell", "exit_plan_mode", "plan",
  };
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 2000);
  g_autoptr(PdToolRegistry) with_plan = pd_tool_registry_new ();
  g_autoptr(PdToolRegistry) without_plan = pd_tool_registry_new ();
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(PdTool) first = pd_plan_tool_new (store);
  g_autoptr(PdPlanStore) other_store = pd_plan_store_new (12, 2000);
  g_autoptr(PdTool) second = pd_plan_tool_new (other_store);

  pd_tool_registry_add_builtins (with_plan, store);
  pd_tool_registry_add_builtins (without_plan, NULL);
  tools = pd_tool_registry_list (with_plan);
  g_assert_cmpuint (tools->len, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < tools->len; i++)
    {
      PdTool *tool = g_ptr_array_index (tools, i);

      g_assert_cmpstr (pd_tool_get_name (tool), ==, names[i]);
      g_assert_true (pd_tool_is_builtin (tool, names[i]));
      g_assert_false (pd_tool_is_builtin (tool, i == 0 ? "grep" : "read_file"));
    }
  g_assert_cmpuint (pd_tool_registry_get_n_tools (without_plan), ==, G_N_ELEMENTS (names) - 1);
  g_assert_null (pd_tool_registry_lookup (without_plan, "plan"));
  g_assert_true (pd_plan_tool_get_store (PD_PLAN_TOOL (pd_tool_registry_lookup (with_plan, "plan"))) == store);
  g_assert_true (pd_plan_tool_get_store (PD_PLAN_TOOL (first)) == store);
  g_assert_true (pd_plan_tool_get_store (PD_PLAN_TOOL (second)) == other_store);
  g_assert_false (pd_tool_is_builtin (store, "plan"));
  g_assert_false (pd_tool_is_builtin (NULL, "plan"));
}

/* A tool that declares neither its safety nor its effects. */
#define TEST_TYPE_BARE_TOOL (test_bare_tool_get_type ())
G_DECLARE_FINAL_TYPE (TestBareTool, test_bare_tool, TEST, BARE_TOOL, GObject)

struct _TestBareTool
{
  GObject parent_instance;
};

static const char *
test_bare_tool_get_name (PdTool *tool)
{
  return "bare";
}

static void
test_bare_tool_iface_init (PdToolInterface *iface)
{
  iface->get_name = test_bare_tool_get_name;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestBareTool, test_bare_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TOOL, test_bare_tool_iface_init))

static void
test_bare_tool_class_init (TestBareToolClass *klass)
{
}

static void
test_bare_tool_init (TestBareTool *self)
{
}

static void
test_undeclared_safety (void)
{
  g_autoptr(PdTool) bare = g_object_new (TEST_TYPE_BARE_TOOL, NULL);

  g_assert_cmpint (pd_tool_get_safety (bare), ==, PD_TOOL_MUTATING);
  g_assert_cmpint (pd_tool_get_effects (bare, NULL), ==, PD_TOOL_EFFECTS_UNKNOWN);
  g_assert_false (pd_tool_is_builtin (bare, "bare"));
}

static void
test_result_helpers (void)
{
  g_autoptr(PdToolResult) denied = pd_tool_result_new_denied ("shell", "the user declined");
  g_autoptr(PdToolResult) invalid = pd_tool_result_new (TRUE, "bad \xff byte");
  g_autoptr(PdToolResult) copy = NULL;

  g_assert_false (denied->ok);
  g_assert_true (denied->denied);
  g_assert_true (g_str_has_prefix (denied->content, "denied: the shell call was not run (the user declined)"));

  g_assert_true (g_utf8_validate (invalid->content, -1, NULL));
  copy = pd_tool_result_copy (denied);
  g_assert_true (copy->denied);
  g_assert_cmpstr (copy->content, ==, denied->content);
  g_assert_true (copy->content != denied->content);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_tools_init (&argc, &argv);

  ADD ("/pd/tools/paths/resolve", test_paths_resolve);
  ADD ("/pd/tools/paths/tools-refuse", test_paths_tools_refuse);
  ADD ("/pd/tools/paths/tools-open-alike", test_paths_tools_open_alike);
  ADD ("/pd/tools/paths/allow-outside", test_paths_allow_outside);
  ADD ("/pd/tools/paths/allow-outside-write", test_paths_allow_outside_write);
  ADD ("/pd/tools/paths/race-openat2", test_paths_race_openat2);
  ADD ("/pd/tools/paths/race-walk", test_paths_race_walk);
  ADD ("/pd/tools/plan/round-trip", test_plan_tool);
  g_test_add_func ("/pd/tools/context", test_context);
  g_test_add_func ("/pd/tools/safety-and-effects", test_safety_and_effects);
  g_test_add_func ("/pd/tools/registry", test_registry);
  g_test_add_func ("/pd/tools/result-helpers", test_result_helpers);
  g_test_add_func ("/pd/tools/builtin-table", test_builtin_table);
  g_test_add_func ("/pd/tools/undeclared-safety", test_undeclared_safety);

  return g_test_run ();
}
