/* test-tools-resolve-once.c: a write or an edit acts on the file its
 * question named.  The path is resolved once when the call is decided; the
 * question's preview, plan mode's guard and the tool take that resolution,
 * and the tool opens the file from the folder recorded then, following no
 * link and crossing no mount.  Real files, real links, a real folder
 * exchange between the ask and the write, a real flipping thread, and a
 * real bind mount where the test may mount (root with CAP_SYS_ADMIN).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#define _GNU_SOURCE

#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>

#include "pd-test-engine.h"
#include "pd-edit-file-tool.h"
#include "pd-read-file-tool.h"
#include "pd-tool-private.h"
#include "pd-write-file-tool.h"

typedef struct
{
  char          *root;
  char          *wd;
  char          *outside;
  PdToolContext *context;
} Dirs;


/* A write's or an edit's preview begins by naming the folder ("In
 * /path:"), as a command's does; what it says of the file comes next. */
static const char *
past_folder_line (const char *preview)
{
  const char *end = strchr (preview, '\n');

  if (g_str_has_prefix (preview, "In ") && end != NULL && end > preview && end[-1] == ':')
    return end + 1;
  return preview;
}
static void
dirs_set_up (Dirs *d)
{
  g_autoptr(GError) error = NULL;

  d->root = g_dir_make_tmp ("pd-resolve-once-XXXXXX", &error);
  g_assert_no_error (error);
  d->wd = g_build_filename (d->root, "wd", NULL);
  d->outside = g_build_filename (d->root, "outside", NULL);
  g_assert_cmpint (g_mkdir_with_parents (d->wd, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (d->outside, 0755), ==, 0);
  d->context = pd_tool_context_new (d->wd, &error);
  g_assert_no_error (error);
}

static void
dirs_tear_down (Dirs *d)
{
  g_clear_pointer (&d->context, pd_tool_context_unref);
  pd_test_remove_tree (d->root);
  g_free (d->root);
  g_free (d->wd);
  g_free (d->outside);
}

static char *
wd_path (Dirs       *d,
         const char *relative)
{
  return g_build_filename (d->wd, relative, NULL);
}

static void
put_text (const char *path,
          const char *text)
{
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static char *
get_text (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return text;
}

static JsonObject *
args_of (const char *json)
{
  g_autoptr(JsonNode) node = json_from_string (json, NULL);

  g_assert_nonnull (node);
  return json_object_ref (json_node_get_object (node));
}

static PdToolResult *
call_tool (PdTool        *tool,
           PdToolContext *context,
           const char    *json)
{
  g_autoptr(JsonObject) args = args_of (json);
  g_autoptr(GError) error = NULL;
  PdToolResult *result = pd_tool_call (tool, context, args, NULL, &error);

  g_assert_no_error (error);
  g_assert (result != NULL);
  return result;
}

/* The call's context as the engine makes it (decide_tool_job()). */
static PdToolContext *
approved_context (Dirs       *d,
                  const char *path)
{
  PdToolContext *context = pd_tool_context_copy (d->context);

  pd_tool_context_approve_path (context, path);
  return context;
}

static void
exchange (const char *a,
          const char *b)
{
  g_assert_cmpint (renameat2 (AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE), ==, 0);
}

/* Two real folders exchanged between the ask and the write: no link on the
 * way, the same name, but another folder.  The write landed in the folder
 * put in its place (.git/hooks, once exchanged back). */
static void
test_folder_exchanged (gconstpointer data)
{
  gboolean walk = GPOINTER_TO_INT (data);
  Dirs dirs = { 0 }, *d = &dirs;
  g_autoptr(PdTool) write_file = pd_write_file_tool_new ();
  g_autoptr(PdTool) edit_file = pd_edit_file_tool_new ();
  g_autofree char *x = NULL;
  g_autofree char *hooks = NULL;
  g_autofree char *hook = NULL;
  g_autofree char *hook_edit = NULL;
  g_autofree char *text = NULL;

  _pd_tool_set_force_walk (walk);
  dirs_set_up (d);
  x = wd_path (d, "docs/x");
  hooks = wd_path (d, ".git/hooks");
  g_assert_cmpint (g_mkdir_with_parents (x, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (hooks, 0755), ==, 0);
  hook = g_build_filename (hooks, "n.md", NULL);
  hook_edit = g_build_filename (hooks, "f.md", NULL);
  put_text (hook_edit, "AAA\n");
  {
    g_autofree char *f = g_build_filename (x, "f.md", NULL);

    put_text (f, "AAA\n");
  }

  {
    g_autoptr(PdToolContext) context = approved_context (d, "docs/x/n.md");
    g_autoptr(PdToolResult) result = NULL;

    exchange (x, hooks);
    result = call_tool (write_file, context, "{\"path\":\"docs/x/n.md\",\"content\":\"PWNED\"}");
    exchange (x, hooks);
    g_test_message ("write: %s", result->content);
    g_assert_false (g_file_test (hook, G_FILE_TEST_EXISTS));
    g_assert_false (result->ok);
    g_assert_nonnull (strstr (result->content, "not the one it was when the call was let through"));
  }

  {
    g_autoptr(PdToolContext) context = approved_context (d, "docs/x/f.md");
    g_autoptr(PdToolResult) result = NULL;

    exchange (x, hooks);
    result = call_tool (edit_file, context,
                        "{\"path\":\"docs/x/f.md\",\"old_string\":\"AAA\",\"new_string\":\"PWNED\"}");
    exchange (x, hooks);
    g_test_message ("edit: %s", result->content);
    text = get_text (hook_edit);
    g_assert_cmpstr (text, ==, "AAA\n");
    g_assert_false (result->ok);
  }

  /* Left as it was, the same calls work: the refusals were the exchange's. */
  {
    g_autoptr(PdToolContext) context = approved_context (d, "docs/x/n.md");
    g_autoptr(PdToolResult) result = call_tool (write_file, context,
                                                "{\"path\":\"docs/x/n.md\",\"content\":\"notes\"}");
    g_autofree char *written = g_build_filename (x, "n.md", NULL);
    g_autofree char *got = NULL;

    g_assert_true (result->ok);
    got = get_text (written);
    g_assert_cmpstr (got, ==, "notes");
  }
  {
    g_autoptr(PdToolContext) context = approved_context (d, "docs/x/new/deep/n.md");
    g_autoptr(PdToolResult) result = call_tool (write_file, context,
                                                "{\"path\":\"docs/x/new/deep/n.md\",\"content\":\"deep\"}");

    g_assert_true (result->ok);
  }

  _pd_tool_set_force_walk (FALSE);
  dirs_tear_down (d);
}

/* The preview says what the call's one resolution said, not what the path
 * reads as a moment later: docs/x was a link to ../.git/hooks when the call
 * was decided, a folder when the preview was made.  The preview showed
 * plain docs/x/n.md while the tool wrote .git/hooks/n.md (att20 H1). */
static void
test_preview_from_approval (void)
{
  Dirs dirs = { 0 }, *d = &dirs;
  g_autoptr(PdTool) write_file = pd_write_file_tool_new ();
  g_autoptr(PdTool) edit_file = pd_edit_file_tool_new ();
  g_autoptr(PdToolContext) context = NULL;
  g_autoptr(JsonObject) args = args_of ("{\"path\":\"docs/x/n.md\",\"content\":\"hi\"}");
  g_autoptr(JsonObject) edit_args = args_of ("{\"path\":\"docs/x/n.md\",\"old_string\":\"a\",\"new_string\":\"b\"}");
  g_autoptr(PdToolResult) result = NULL;
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;
  g_autofree char *hooks = NULL;
  g_autofree char *preview = NULL;
  g_autofree char *edit_preview = NULL;
  g_autofree char *in_docs = NULL;
  g_autofree char *in_hooks = NULL;

  dirs_set_up (d);
  x = wd_path (d, "docs/x");
  y = wd_path (d, "docs/y");
  hooks = wd_path (d, ".git/hooks");
  g_assert_cmpint (g_mkdir_with_parents (hooks, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (y, 0755), ==, 0);
  g_assert_cmpint (symlink ("../.git/hooks", x), ==, 0);

  context = approved_context (d, "docs/x/n.md");
  /* Flipped: docs/x a folder now, as a second resolution would see it. */
  exchange (x, y);
  preview = pd_tool_preview (write_file, context, args, NULL);
  edit_preview = pd_tool_preview (edit_file, context, edit_args, NULL);
  g_test_message ("preview: %s", preview);
  g_assert_true (g_str_has_prefix (past_folder_line (preview), "Writes .git/hooks/n.md\n"));
  g_assert_true (g_str_has_prefix (past_folder_line (edit_preview), "Edits .git/hooks/n.md\n"));

  /* What it named is what is written, wherever docs/x leads now. */
  result = call_tool (write_file, context, "{\"path\":\"docs/x/n.md\",\"content\":\"hi\"}");
  g_test_message ("write: %s", result->content);
  in_docs = g_build_filename (x, "n.md", NULL);
  in_hooks = g_build_filename (hooks, "n.md", NULL);
  g_assert_false (g_file_test (in_docs, G_FILE_TEST_EXISTS));
  g_assert_true (!result->ok || g_file_test (in_hooks, G_FILE_TEST_IS_REGULAR));

  dirs_tear_down (d);
}

/* A bind mount is not a link, but leads elsewhere: a folder outside bound
 * over docs/m, the whole working directory over .plandeck/plans/x.  Reads,
 * writes and edits through it are refused.  Needs mount(): skipped
 * without it (not root, or no CAP_SYS_ADMIN in a container). */
static void
test_mount_crossing (gconstpointer data)
{
  gboolean walk = GPOINTER_TO_INT (data);
  Dirs dirs = { 0 }, *d = &dirs;
  g_autoptr(PdTool) write_file = pd_write_file_tool_new ();
  g_autoptr(PdTool) edit_file = pd_edit_file_tool_new ();
  g_autoptr(PdTool) read_file = pd_read_file_tool_new ();
  g_autofree char *m = NULL;
  g_autofree char *plans_x = NULL;
  g_autofree char *passwd = NULL;
  g_autofree char *readme = NULL;
  g_autofree char *text = NULL;
  const char *calls[] = {
    "{\"path\":\"docs/m/passwd\",\"content\":\"PWNED\"}",
    "{\"path\":\"docs/m/new.txt\",\"content\":\"PWNED\"}",
    "{\"path\":\".plandeck/plans/x/README.md\",\"content\":\"PWNED\"}",
  };

  dirs_set_up (d);
  m = wd_path (d, "docs/m");
  plans_x = wd_path (d, ".plandeck/plans/x");
  g_assert_cmpint (g_mkdir_with_parents (m, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (plans_x, 0755), ==, 0);
  passwd = g_build_filename (d->outside, "passwd", NULL);
  put_text (passwd, "root:x:0:0\n");
  readme = wd_path (d, "README.md");
  put_text (readme, "# Project\n");

  if (mount (d->outside, m, NULL, MS_BIND, NULL) != 0)
    {
      g_test_skip_printf ("cannot bind-mount here (%s): not root, or no CAP_SYS_ADMIN", g_strerror (errno));
      dirs_tear_down (d);
      return;
    }
  g_assert_cmpint (mount (d->wd, plans_x, NULL, MS_BIND, NULL), ==, 0);
  _pd_tool_set_force_walk (walk);
  /* A failed check must not leave the mounts behind: the checks go on to
   * the unmount, and fail the test there (these tests run last). */
  g_test_set_nonfatal_assertions ();

  for (guint i = 0; i < G_N_ELEMENTS (calls); i++)
    {
      g_autoptr(JsonObject) args = args_of (calls[i]);
      g_autoptr(PdToolContext) context = approved_context (d, json_object_get_string_member (args, "path"));
      g_autoptr(PdToolResult) result = call_tool (write_file, context, calls[i]);

      g_test_message ("%s: %s", calls[i], result->content);
      g_assert_false (result->ok);
      g_assert_nonnull (strstr (result->content, "mount point"));
    }
  {
    g_autoptr(PdToolContext) context = approved_context (d, "docs/m/passwd");
    g_autoptr(PdToolResult) edited = call_tool (edit_file, context,
                                                "{\"path\":\"docs/m/passwd\",\"old_string\":\"root\","
                                                "\"new_string\":\"PWNED\"}");
    g_autoptr(PdToolResult) read = call_tool (read_file, d->context, "{\"path\":\"docs/m/passwd\"}");

    g_assert_false (edited->ok);
    g_assert_false (read->ok);
    g_assert_null (strstr (read->content, "root:x"));
  }

  text = get_text (passwd);
  g_assert_cmpstr (text, ==, "root:x:0:0\n");
  g_free (text);
  text = get_text (readme);
  g_assert_cmpstr (text, ==, "# Project\n");
  {
    g_autofree char *new_outside = g_build_filename (d->outside, "new.txt", NULL);

    g_assert_false (g_file_test (new_outside, G_FILE_TEST_EXISTS));
  }

  _pd_tool_set_force_walk (FALSE);
  g_assert_cmpint (umount2 (plans_x, MNT_DETACH), ==, 0);
  g_assert_cmpint (umount2 (m, MNT_DETACH), ==, 0);
  dirs_tear_down (d);
}

/* With --allow-outside, a path outside is still opened as resolved, with
 * no link on the way: a link swapped in between the ask and the write is
 * refused, and the plain case works. */
static void
test_allow_outside_one_resolution (void)
{
  Dirs dirs = { 0 }, *d = &dirs;
  g_autoptr(PdTool) write_file = pd_write_file_tool_new ();
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *elsewhere = NULL;

  dirs_set_up (d);
  pd_tool_context_set_allow_outside (d->context, TRUE);
  a = g_build_filename (d->outside, "a", NULL);
  b = g_build_filename (d->outside, "b", NULL);
  elsewhere = g_build_filename (d->root, "elsewhere", NULL);
  g_assert_cmpint (g_mkdir (a, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (elsewhere, 0755), ==, 0);
  g_assert_cmpint (symlink (elsewhere, b), ==, 0);

  {
    g_autoptr(PdToolContext) context = approved_context (d, "../outside/a/n.txt");
    g_autoptr(PdToolResult) result = NULL;
    g_autofree char *stray = g_build_filename (elsewhere, "n.txt", NULL);

    exchange (a, b);
    result = call_tool (write_file, context, "{\"path\":\"../outside/a/n.txt\",\"content\":\"x\"}");
    exchange (a, b);
    g_test_message ("outside, swapped: %s", result->content);
    g_assert_false (result->ok);
    g_assert_false (g_file_test (stray, G_FILE_TEST_EXISTS));
  }
  {
    g_autoptr(PdToolContext) context = approved_context (d, "../outside/a/n.txt");
    g_autoptr(PdToolResult) result = call_tool (write_file, context,
                                                "{\"path\":\"../outside/a/n.txt\",\"content\":\"x\"}");
    g_autofree char *written = g_build_filename (a, "n.txt", NULL);

    g_assert_true (result->ok);
    g_assert_true (g_file_test (written, G_FILE_TEST_IS_REGULAR));
  }

  dirs_tear_down (d);
}

/* --- the engine, with a real flipping thread ------------------------- */

typedef struct
{
  const char *a;
  const char *b;
  gint        stop;
  gint        swaps;
} Flipper;

static gpointer
flip (gpointer data)
{
  Flipper *flipper = data;

  while (!g_atomic_int_get (&flipper->stop))
    if (renameat2 (AT_FDCWD, flipper->a, AT_FDCWD, flipper->b, RENAME_EXCHANGE) == 0)
      g_atomic_int_inc (&flipper->swaps);
  return NULL;
}

typedef struct
{
  GPtrArray *previews;
} Asked;

static gboolean
approve_and_keep (const char *tool,
                  const char *summary,
                  const char *preview,
                  gpointer    data)
{
  Asked *asked = data;

  g_ptr_array_add (asked->previews, g_strdup (preview));
  return TRUE;
}

/* The recording of @n write_file calls in one answer, each path padded
 * with "a/../" @pad times after @folder. */
static char *
padded_recording (guint       n,
                  const char *folder,
                  guint       pad,
                  gboolean    plan_file)
{
  GString *out = g_string_new ("{'turns':[{'content':'','tool_calls':[");
  g_autoptr(GString) padding = g_string_new (NULL);

  for (guint i = 0; i < pad; i++)
    g_string_append (padding, "a/../");
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      if (plan_file)
        g_string_append_printf (out, "{'name':'write_file','arguments':{'path':'%s/%sREADME.md',"
                                     "'content':'PWNED %u'}}", folder, padding->str, i);
      else
        g_string_append_printf (out, "{'name':'write_file','arguments':{'path':'%s/%sn%u.md',"
                                     "'content':'n %u'}}", folder, padding->str, i, i);
    }
  g_string_append (out, "]},{'content':'Done.'}]}");
  return g_string_free (out, FALSE);
}

/* Runs @message in @f, replaying @recording, while the folder @x (made,
 * with a folder "a" in it, as @other_a is made) and @y, a link to
 * @target, swap places as fast as they can: the set-up both engine tests
 * share.  The run's result, once they swapped at least once. */
static PdRunResult *
run_flipping (EngineFixture *f,
              const char    *x,
              const char    *y,
              const char    *target,
              const char    *other_a,
              const char    *recording,
              const char    *message)
{
  g_autofree char *xa = g_build_filename (x, "a", NULL);
  Flipper flipper = { x, y, 0, 0 };
  PdRunResult *result;
  GThread *thread;

  g_assert_cmpint (g_mkdir_with_parents (xa, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (other_a, 0755), ==, 0);
  g_assert_cmpint (symlink (target, y), ==, 0);
  engine_fixture_replay (f, recording, NULL);

  thread = g_thread_new ("flip", flip, &flipper);
  result = engine_fixture_run (f, NULL, message);
  g_atomic_int_set (&flipper.stop, TRUE);
  g_thread_join (thread);
  g_test_message ("%d swaps", g_atomic_int_get (&flipper.swaps));
  g_assert_cmpint (g_atomic_int_get (&flipper.swaps), >, 0);
  return result;
}

/* att20 H1: docs/x flips between a folder and a link to ../.git/hooks
 * while the calls are decided.  Whatever each question said, the file
 * landed there: a question that did not say "Writes .git/hooks/…" never
 * wrote into .git/hooks, and one that did never wrote into docs/x. */
static void
test_engine_flip_ask (void)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  g_autoptr(PdRunResult) result = NULL;
  g_autofree char *recording = NULL;
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;
  g_autofree char *hooks = NULL;
  g_autofree char *hooks_a = NULL;
  Asked asked = { g_ptr_array_new_with_free_func (g_free) };
  guint n = 120, wins = 0, hooks_landed = 0, docs_landed = 0;

  engine_fixture_setup (f, FALSE);
  x = g_build_filename (f->workdir, "docs", "x", NULL);
  y = g_build_filename (f->workdir, "docs", "y", NULL);
  hooks = g_build_filename (f->workdir, ".git", "hooks", NULL);
  hooks_a = g_build_filename (hooks, "a", NULL);
  pd_approver_set_policy (f->approver, PD_APPROVAL_POLICY_ASK);
  pd_approver_set_func (f->approver, approve_and_keep, &asked, NULL);
  recording = padded_recording (n, "docs/x", 300, FALSE);
  result = run_flipping (f, x, y, "../.git/hooks", hooks_a, recording, "Take notes");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpuint (asked.previews->len, ==, n);

  /* Back to docs/x the folder, to look. */
  {
    struct stat st;

    g_assert_cmpint (lstat (x, &st), ==, 0);
    if (S_ISLNK (st.st_mode))
      exchange (x, y);
  }
  for (guint i = 0; i < n; i++)
    {
      const char *preview = g_ptr_array_index (asked.previews, i);
      g_autofree char *name = g_strdup_printf ("n%u.md", i);
      g_autofree char *in_hooks = g_build_filename (hooks, name, NULL);
      g_autofree char *in_docs = g_build_filename (x, name, NULL);
      g_autofree char *said = g_strdup_printf ("Writes .git/hooks/%s\n", name);
      gboolean said_hooks = g_str_has_prefix (past_folder_line (preview), said);

      if (g_file_test (in_hooks, G_FILE_TEST_EXISTS))
        {
          hooks_landed++;
          if (!said_hooks)
            wins++;
        }
      if (g_file_test (in_docs, G_FILE_TEST_EXISTS))
        {
          docs_landed++;
          if (said_hooks)
            wins++;
        }
    }
  g_test_message ("%u calls: %u landed in docs/x, %u in .git/hooks (each as its question said or not: %u not)",
                  n, docs_landed, hooks_landed, wins);
  g_assert_cmpuint (wins, ==, 0);

  pd_approver_set_func (f->approver, NULL, NULL, NULL);
  g_ptr_array_unref (asked.previews);
  engine_fixture_teardown (f);
}

/* att20 H1, plan mode, --approve auto: .plandeck/plans/x flips between a
 * folder and a link to ../.. while plan mode's guard looks.  README.md is
 * never replaced. */
static void
test_engine_flip_plan_mode (void)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  g_autoptr(PdRunResult) result = NULL;
  g_autofree char *recording = NULL;
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;
  g_autofree char *readme = NULL;
  g_autofree char *text = NULL;
  g_autofree char *workdir_a = NULL;

  engine_fixture_setup (f, TRUE);
  x = g_build_filename (f->workdir, ".plandeck", "plans", "x", NULL);
  y = g_build_filename (f->workdir, ".plandeck", "plans", "y", NULL);
  workdir_a = g_build_filename (f->workdir, "a", NULL);
  readme = g_build_filename (f->workdir, "README.md", NULL);
  g_assert_true (g_file_set_contents (readme, "# Project\n", -1, NULL));
  recording = padded_recording (150, ".plandeck/plans/x", 1500, TRUE);
  result = run_flipping (f, x, y, "../..", workdir_a, recording, "/plan Look around");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  text = get_text (readme);
  g_assert_cmpstr (text, ==, "# Project\n");

  engine_fixture_teardown (f);
}

/* The refusal names the folder that changed (att21 L1): "the folder of
 * 'docs'" was said for docs/q.md, whose folder is docs itself; and for a
 * write into folders yet to be made, the one recorded, not the path to
 * be made. */
static void
test_folder_swap_words (gconstpointer data)
{
  Dirs dirs = { 0 }, *d = &dirs;
  g_autoptr(PdTool) write_file = pd_write_file_tool_new ();
  g_autoptr(PdTool) edit_file = pd_edit_file_tool_new ();
  g_autofree char *docs = NULL;
  g_autofree char *other = NULL;
  g_autofree char *q = NULL;

  _pd_tool_set_force_walk (GPOINTER_TO_INT (data));
  dirs_set_up (d);
  docs = wd_path (d, "docs");
  other = wd_path (d, "other");
  q = wd_path (d, "docs/q.md");
  put_text (q, "AAA\n");
  {
    g_autofree char *other_q = g_build_filename (other, "q.md", NULL);

    put_text (other_q, "AAA\n");
  }

  {
    g_autoptr(PdToolContext) context = approved_context (d, "docs/q.md");
    g_autoptr(PdToolResult) result = NULL;

    exchange (docs, other);
    result = call_tool (edit_file, context,
                        "{\"path\":\"docs/q.md\",\"old_string\":\"AAA\",\"new_string\":\"B\"}");
    exchange (docs, other);
    g_test_message ("edit: %s", result->content);
    g_assert_false (result->ok);
    g_assert_cmpstr (result->content, ==,
                     "edit_file: the folder 'docs' is not the one it was when the call was let "
                     "through (it was moved, or another folder put in its place, meanwhile); "
                     "nothing was written");
  }
  {
    g_autoptr(PdToolContext) context = approved_context (d, "docs/new/deep/n.md");
    g_autoptr(PdToolResult) result = NULL;

    exchange (docs, other);
    result = call_tool (write_file, context, "{\"path\":\"docs/new/deep/n.md\",\"content\":\"x\"}");
    exchange (docs, other);
    g_test_message ("write: %s", result->content);
    g_assert_false (result->ok);
    g_assert_nonnull (strstr (result->content, ": the folder 'docs' is not the one it was when"));
    g_assert_null (strstr (result->content, "docs/new"));
  }

  _pd_tool_set_force_walk (FALSE);
  dirs_tear_down (d);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/pd/tools/resolve-once/folder-exchanged", GINT_TO_POINTER (FALSE), test_folder_exchanged);
  g_test_add_data_func ("/pd/tools/resolve-once/folder-exchanged-walk", GINT_TO_POINTER (TRUE),
                        test_folder_exchanged);
  g_test_add_data_func ("/pd/tools/resolve-once/folder-swap-words", GINT_TO_POINTER (FALSE), test_folder_swap_words);
  g_test_add_data_func ("/pd/tools/resolve-once/folder-swap-words-walk", GINT_TO_POINTER (TRUE),
                        test_folder_swap_words);
  g_test_add_func ("/pd/tools/resolve-once/preview-from-approval", test_preview_from_approval);
  g_test_add_func ("/pd/tools/resolve-once/allow-outside", test_allow_outside_one_resolution);
  g_test_add_func ("/pd/tools/resolve-once/engine-flip-ask", test_engine_flip_ask);
  g_test_add_func ("/pd/tools/resolve-once/engine-flip-plan-mode", test_engine_flip_plan_mode);
  g_test_add_data_func ("/pd/tools/resolve-once/mount-crossing", GINT_TO_POINTER (FALSE), test_mount_crossing);
  g_test_add_data_func ("/pd/tools/resolve-once/mount-crossing-walk", GINT_TO_POINTER (TRUE), test_mount_crossing);

  return g_test_run ();
}
