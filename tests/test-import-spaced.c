/* test-import-spaced.c: a transcript reads the same in any valid JSON
 * spelling: the project's fixture transcripts, each line written again
 * with a space after every colon and comma (as Python's json.dumps() with
 * separators (', ', ': ') writes it), give the sessions the compact ones
 * give — their times, titles, folders and checklists.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <json-glib/json-glib.h>

#include "pd-import-scanner.h"
#include "pd-import-test.h"

static void write_node (GString *out, JsonNode *node);

static void
write_string (GString    *out,
              const char *text)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *quoted = NULL;

  json_node_set_string (node, text);
  quoted = json_to_string (node, FALSE);
  g_string_append (out, quoted);
}

static void
write_node (GString  *out,
            JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;
      gboolean first = TRUE;

      g_string_append_c (out, '{');
      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        {
          if (!first)
            g_string_append (out, ", ");
          first = FALSE;
          write_string (out, name);
          g_string_append (out, ": ");
          write_node (out, member);
        }
      g_string_append_c (out, '}');
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      g_string_append_c (out, '[');
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          write_node (out, json_array_get_element (array, i));
        }
      g_string_append_c (out, ']');
    }
  else
    {
      g_autofree char *text = json_to_string (node, FALSE);

      g_string_append (out, text);
    }
}

/* Copies the tree @from to @to, every JSON-lines file's lines spaced. */
static void
copy_spaced (const char *from,
             const char *to,
             guint      *n_spaced)
{
  g_autoptr(GDir) dir = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (to, 0700), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *src = g_build_filename (from, name, NULL);
      g_autofree char *dst = g_build_filename (to, name, NULL);
      g_autofree char *contents = NULL;
      g_autoptr(GError) error = NULL;
      gsize length = 0;

      if (g_file_test (src, G_FILE_TEST_IS_DIR))
        {
          copy_spaced (src, dst, n_spaced);
          continue;
        }
      g_assert_true (g_file_get_contents (src, &contents, &length, &error));
      g_assert_no_error (error);
      if (g_str_has_suffix (name, ".jsonl"))
        {
          g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);
          g_autoptr(GString) out = g_string_new (NULL);

          for (guint i = 0; lines[i] != NULL; i++)
            {
              g_autoptr(JsonParser) parser = json_parser_new ();

              if (lines[i][0] == '{' && json_parser_load_from_data (parser, lines[i], -1, NULL))
                write_node (out, json_parser_get_root (parser));
              else
                g_string_append (out, lines[i]);
              if (lines[i + 1] != NULL)
                g_string_append_c (out, '\n');
            }
          g_free (contents);
          length = out->len;
          contents = g_string_free (g_steal_pointer (&out), FALSE);
          (*n_spaced)++;
        }
      g_assert_true (g_file_set_contents (dst, contents, (gssize) length, &error));
      g_assert_no_error (error);
    }
}

static gint
by_path (gconstpointer a,
         gconstpointer b)
{
  return g_strcmp0 (pd_imported_session_get_path (*(PdImportedSession **) a),
                    pd_imported_session_get_path (*(PdImportedSession **) b));
}

static void
test_spaced (gconstpointer data)
{
  const char *agent = data;
  g_autofree char *root = pd_import_test_fixtures (agent);
  g_autofree char *tmp = pd_import_test_tmpdir ();
  g_autofree char *spaced = g_build_filename (tmp, agent, NULL);
  g_autoptr(GPtrArray) compact_sessions = NULL;
  g_autoptr(GPtrArray) spaced_sessions = NULL;
  g_autoptr(GError) error = NULL;
  guint n_spaced = 0;
  guint n_timed = 0;

  copy_spaced (root, spaced, &n_spaced);
  g_assert_cmpuint (n_spaced, >, 0);
  compact_sessions = pd_import_read_path (root, NULL, &error);
  g_assert_no_error (error);
  spaced_sessions = pd_import_read_path (spaced, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (compact_sessions->len, >, 0);
  g_assert_cmpuint (spaced_sessions->len, ==, compact_sessions->len);
  g_ptr_array_sort (compact_sessions, by_path);
  g_ptr_array_sort (spaced_sessions, by_path);

  for (guint i = 0; i < compact_sessions->len; i++)
    {
      PdImportedSession *a = g_ptr_array_index (compact_sessions, i);
      PdImportedSession *b = g_ptr_array_index (spaced_sessions, i);
      guint a_done = 0, a_total = 0, b_done = 0, b_total = 0;

      g_test_message ("%s", pd_imported_session_get_path (a));
      g_assert_cmpstr (pd_imported_session_get_id (b), ==, pd_imported_session_get_id (a));
      g_assert_cmpint (pd_imported_session_get_source (b), ==, pd_imported_session_get_source (a));
      g_assert_cmpint (pd_imported_session_get_created_at (b), ==, pd_imported_session_get_created_at (a));
      g_assert_cmpint (pd_imported_session_get_updated_at (b), ==, pd_imported_session_get_updated_at (a));
      g_assert_cmpstr (pd_imported_session_get_title (b), ==, pd_imported_session_get_title (a));
      g_assert_cmpstr (pd_imported_session_get_cwd (b), ==, pd_imported_session_get_cwd (a));
      pd_checklist_count (pd_imported_session_get_checklist (a), &a_done, &a_total, NULL);
      pd_checklist_count (pd_imported_session_get_checklist (b), &b_done, &b_total, NULL);
      g_assert_cmpuint (b_done, ==, a_done);
      g_assert_cmpuint (b_total, ==, a_total);
      if (pd_imported_session_get_created_at (a) > 0)
        n_timed++;
    }
  g_assert_cmpuint (n_timed, >, 0);
  pd_test_remove_tree (tmp);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/pd/import-spaced/claude-code", "claude-code", test_spaced);
  g_test_add_data_func ("/pd/import-spaced/codex", "codex", test_spaced);
  g_test_add_data_func ("/pd/import-spaced/qwen", "qwen", test_spaced);
  g_test_add_data_func ("/pd/import-spaced/gemini", "gemini", test_spaced);

  return g_test_run ();
}
