/* test-import-pick.c: the readers' lean line path (pd_json_parse_picked()
 * with the members each reader reads) against whole trees: for every line
 * of every fixture, and the same lines broken in many ways, the picked
 * parse refuses exactly what the whole parse refuses and keeps exactly the
 * picked part of its tree; and every fixture transcript, whole and broken,
 * reads to the same sessions either way. */
#include "config.h"

#include <string.h>

#include "pd-import-private.h"
#include "pd-import-scanner.h"
#include "pd-import-test.h"
#include "pd-json.h"

/* Arrays within arrays, a member picked whole beside members picked in
 * part, names that are prefixes of others. */
static const PdJsonPick deep_inner[] = {
  { "a", NULL }, { "ab", NULL }, { NULL, NULL },
};
static const PdJsonPick deep_pick[] = {
  { "type", NULL }, { "x", deep_inner }, { "message", deep_inner }, { "content", deep_inner },
  { "payload", deep_inner }, { NULL, NULL },
};

static const PdJsonPick *
all_picks (guint i)
{
  switch (i)
    {
    case 0: return _pd_claude_line_pick;
    case 1: return _pd_codex_line_pick;
    case 2: return deep_pick;
    default: return NULL;
    }
}

/* The reference: @node (a whole tree) with @pick applied, as
 * pd_json_parse_picked() documents it, built the obvious way. */
static JsonNode *
prune (JsonNode         *node,
       const PdJsonPick *pick)
{
  if (pick == NULL)
    return json_node_copy (node);
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *in = json_node_get_object (node);
      g_autoptr(JsonObject) out = json_object_new ();

      for (const PdJsonPick *p = pick; p->name != NULL; p++)
        {
          JsonNode *member = json_object_get_member (in, p->name);

          if (member != NULL)
            json_object_set_member (out, p->name, prune (member, p->members));
        }
      return json_node_init_object (json_node_alloc (), out);
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *in = json_node_get_array (node);
      g_autoptr(JsonArray) out = json_array_new ();

      for (guint i = 0; i < json_array_get_length (in); i++)
        json_array_add_element (out, prune (json_array_get_element (in, i), pick));
      return json_node_init_array (json_node_alloc (), out);
    }
  return json_node_copy (node);
}

static guint n_checked, n_refused;

/* With every pick (@which -1), or the one @which names. */
static void
check_line (const char *line,
            gsize       length,
            gint        which)
{
  /* Both parsers read @length bytes; a NUL after them, as the JSON lines
   * reader leaves one. */
  g_autofree char *copy = g_strndup (line, length);

  for (guint i = 0; all_picks (i) != NULL; i++)
    {
      g_autoptr(GError) whole_error = NULL;
      g_autoptr(GError) picked_error = NULL;
      g_autoptr(JsonNode) whole = NULL;
      g_autoptr(JsonNode) picked = NULL;

      if (which >= 0 && (guint) which != i)
        continue;
      whole = pd_json_parse_full (copy, (gssize) length, PD_JSON_PARSE_FOREIGN, &whole_error);
      picked = pd_json_parse_picked (copy, (gssize) length, all_picks (i), &picked_error);
      n_checked++;
      if (whole == NULL)
        {
          if (picked != NULL)
            g_error ("picked parse took a line the whole parse refuses (%s): %.300s", whole_error->message, copy);
          g_assert_error (picked_error, PD_JSON_ERROR, whole_error->code);
          n_refused++;
          continue;
        }
      if (picked == NULL)
        g_error ("picked parse refused a line the whole parse takes (%s): %.300s", picked_error->message, copy);
      {
        g_autoptr(JsonNode) expected = prune (whole, all_picks (i));

        if (!json_node_equal (expected, picked))
          {
            g_autofree char *a = json_to_string (expected, FALSE);
            g_autofree char *b = json_to_string (picked, FALSE);

            g_error ("picked tree differs for %.300s\nexpected %.500s\ngot      %.500s", copy, a, b);
          }
      }
    }
}

/* What breaks a line: cuts, and bytes and pieces of JSON spliced in
 * (escapes, surrogates, numbers out of range, deep nesting, bad UTF-8). */
static const char * const pieces[] = {
  "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "\\\"", "\\u0000", "\\ud800", "\\udc00", "\\ud83d\\ude00",
  "\\u00e9", "\\u0054odoWrite", "\\x", "1e999", "-1e-999", "99999999999999999999", "-0", "01", "1.", ".5",
  "-", "0.5e+3", "true", "nul", "\xff", "\xc3", "\xe2\x80\xae", "\t", "\n", "\"type\":", "\"message\":{",
  "\"content\":[{\"a\":1,\"ab\":[[{\"a\":2}]]}],", "\"x\":[[[]],{}],",
};

static void
check_mutations (const char *line,
                 gsize       length,
                 GRand      *rand)
{
  /* Each broken line against one pick, in turn. */
  gint which = g_rand_int_range (rand, 0, 3);

  check_line (line, length, -1);

  /* Cut short, anywhere. */
  for (guint i = 0; i < 4 && length > 0; i++)
    check_line (line, (gsize) g_rand_int_range (rand, 0, (gint32) length), which);

  /* A piece spliced in, or put in place of a byte. */
  for (guint i = 0; i < 12; i++)
    {
      const char *piece = pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))];
      gsize at = length > 0 ? (gsize) g_rand_int_range (rand, 0, (gint32) length) : 0;
      gsize drop = g_rand_boolean (rand) && at < length ? 1 : 0;
      g_autoptr(GString) mutated = g_string_new_len (line, (gssize) at);

      g_string_append (mutated, piece);
      g_string_append_len (mutated, line + at + drop, (gssize) (length - at - drop));
      check_line (mutated->str, mutated->len, which);
    }

  /* Inside nesting deeper than the foreign bound, and just within it (one
   * line in sixteen). */
  for (guint depth = PD_JSON_FOREIGN_MAX_DEPTH - 1;
       depth <= PD_JSON_FOREIGN_MAX_DEPTH && g_rand_int_range (rand, 0, 16) == 0; depth++)
    {
      g_autoptr(GString) nested = g_string_new (NULL);

      for (guint i = 0; i < depth; i++)
        g_string_append (nested, "{\"x\":");
      g_string_append_len (nested, line, (gssize) length);
      for (guint i = 0; i < depth; i++)
        g_string_append_c (nested, '}');
      check_line (nested->str, nested->len, which);
    }
}

static void
collect_files (const char *dir,
               GPtrArray  *files)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle && (name = g_dir_read_name (handle)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect_files (path, files);
      else if (g_str_has_suffix (name, ".jsonl") || g_str_has_suffix (name, ".json"))
        g_ptr_array_add (files, g_steal_pointer (&path));
    }
  _pd_import_sort_names (files);
}

static void
check_lines_of (const char *root)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GRand) rand = g_rand_new_with_seed (18);
  guint n_lines = 0;

  collect_files (root, files);
  g_assert_cmpuint (files->len, >, 0);
  n_checked = n_refused = 0;
  for (guint f = 0; f < files->len; f++)
    {
      g_autofree char *text = NULL;
      gsize size;
      g_auto(GStrv) lines = NULL;

      g_assert_true (g_file_get_contents (g_ptr_array_index (files, f), &text, &size, NULL));
      lines = g_strsplit (text, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        {
          check_mutations (lines[i], strlen (lines[i]), rand);
          n_lines++;
        }
    }
  g_test_message ("%u files, %u lines: %u parses compared, %u refused by both", files->len, n_lines,
                  n_checked, n_refused);
  /* The mutations do reach both outcomes. */
  g_assert_cmpuint (n_refused, >, 0);
  g_assert_cmpuint (n_refused, <, n_checked);
}

static void
test_lines_own (void)
{
  g_autofree char *root = g_strdup (g_getenv ("PD_FIXTURES_DIR"));

  g_assert_nonnull (root);
  check_lines_of (root);
}

static void
test_lines_shared (void)
{
  g_autofree char *root = pd_import_test_shared_fixtures ("");

  if (root == NULL)
    return;
  check_lines_of (root);
}

/* The sessions the scanner reads from @dir, as the JSON `import --json`
 * prints, with the readers picking lines or building whole trees. */
static char *
read_sessions (const char *dir,
               gboolean    pick)
{
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(JsonArray) array = json_array_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;

  _pd_import_set_pick_lines (pick);
  sessions = pd_import_read_path (dir, NULL, &error);
  _pd_import_set_pick_lines (TRUE);
  g_assert_no_error (error);
  for (guint i = 0; i < sessions->len; i++)
    json_array_add_element (array, pd_imported_session_to_json (g_ptr_array_index (sessions, i), TRUE));
  root = json_node_init_array (json_node_alloc (), array);
  return json_to_string (root, TRUE);
}

static void
check_sessions_of (const char *dir)
{
  g_autofree char *picked = read_sessions (dir, TRUE);
  g_autofree char *whole = read_sessions (dir, FALSE);

  g_assert_cmpstr (picked, ==, whole);
  g_assert_cmpuint (strlen (picked), >, 2);
}

/* Each transcript of @root copied with lines broken as check_mutations()
 * breaks them (one line in four), then read both ways. */
static void
check_broken_sessions_of (const char *root)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GRand) rand = g_rand_new_with_seed (1818);
  g_autofree char *tmp = g_dir_make_tmp ("pd-test-pick-XXXXXX", NULL);

  collect_files (root, files);
  for (guint round = 0; round < 3; round++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/%u", tmp, round);

      for (guint f = 0; f < files->len; f++)
        {
          const char *path = g_ptr_array_index (files, f);
          g_autofree char *relative = g_strdup (path + strlen (root));
          g_autofree char *target = g_build_filename (dir, relative, NULL);
          g_autofree char *parent = g_path_get_dirname (target);
          g_autofree char *text = NULL;
          g_auto(GStrv) lines = NULL;
          g_autoptr(GString) out = g_string_new (NULL);

          if (!g_str_has_suffix (path, ".jsonl"))
            continue;
          g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
          lines = g_strsplit (text, "\n", -1);
          for (guint i = 0; lines[i] != NULL; i++)
            {
              gsize length = strlen (lines[i]);

              if (i > 0)
                g_string_append_c (out, '\n');
              if (i > 0 && length > 0 && g_rand_int_range (rand, 0, 4) == 0)
                {
                  const char *piece = pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))];
                  gsize at = (gsize) g_rand_int_range (rand, 0, (gint32) length);

                  g_string_append_len (out, lines[i], (gssize) at);
                  g_string_append (out, piece);
                  g_string_append (out, lines[i] + at + 1);
                }
              else
                g_string_append (out, lines[i]);
            }
          g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
          g_assert_true (g_file_set_contents (target, out->str, (gssize) out->len, NULL));
        }
      check_sessions_of (dir);
    }
  pd_import_test_rmtree (tmp);
}

static void
test_sessions_own (void)
{
  const char * const agents[] = { "claude-code", "codex" };

  for (guint i = 0; i < G_N_ELEMENTS (agents); i++)
    {
      g_autofree char *dir = pd_import_test_fixtures (agents[i]);

      check_sessions_of (dir);
      check_broken_sessions_of (dir);
    }
}

static void
test_sessions_shared (void)
{
  const char * const agents[] = { "claude-code", "codex" };

  for (guint i = 0; i < G_N_ELEMENTS (agents); i++)
    {
      g_autofree char *dir = pd_import_test_shared_fixtures (agents[i]);

      if (dir == NULL)
        return;
      check_sessions_of (dir);
      check_broken_sessions_of (dir);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-pick/lines", test_lines_own);
  g_test_add_func ("/pd/import-pick/lines-shared", test_lines_shared);
  g_test_add_func ("/pd/import-pick/sessions", test_sessions_own);
  g_test_add_func ("/pd/import-pick/sessions-shared", test_sessions_shared);
  return g_test_run ();
}
