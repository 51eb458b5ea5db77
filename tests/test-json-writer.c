/* test-json-writer.c: PdJsonWriter writes the bytes json-glib's pretty
 * generator and pd_safe_text_escape_json() write for the same tree — on
 * hostile strings, on every shape of container, through a file, and for
 * every imported session of the fixtures (what `import --json` prints).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "pd-import-scanner.h"
#include "pd-import-skip.h"
#include "pd-imported-session.h"
#include "pd-json-writer.h"
#include "pd-safe-text.h"

/* What pd_agent_print_json() prints for @node, without its newline. */
static char *
generated (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  return pd_safe_text_escape_json (text);
}

/* @node written through @writer, as member @name. */
static void
write_node (PdJsonWriter *writer,
            const char   *name,
            JsonNode     *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);

        pd_json_writer_begin_object (writer, name);
        for (GList *l = members; l != NULL; l = l->next)
          write_node (writer, l->data, json_object_get_member (object, l->data));
        pd_json_writer_end_object (writer);
      }
      break;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        pd_json_writer_begin_array (writer, name);
        for (guint i = 0; i < json_array_get_length (array); i++)
          write_node (writer, NULL, json_array_get_element (array, i));
        pd_json_writer_end_array (writer);
      }
      break;
    case JSON_NODE_NULL:
      pd_json_writer_null (writer, name);
      break;
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          pd_json_writer_int (writer, name, json_node_get_int (node));
          break;
        case G_TYPE_BOOLEAN:
          pd_json_writer_boolean (writer, name, json_node_get_boolean (node));
          break;
        case G_TYPE_STRING:
          pd_json_writer_string (writer, name, json_node_get_string (node));
          break;
        default:
          g_assert_not_reached ();
        }
      break;
    default:
      g_assert_not_reached ();
    }
}

static char *
written (JsonNode *node)
{
  PdJsonWriter writer;

  pd_json_writer_init (&writer, NULL);
  write_node (&writer, NULL, node);
  return pd_json_writer_finish (&writer);
}

/* Strings as transcripts may hold them: every ASCII control, quotes and
 * backslashes, bidi controls and isolates, C1 controls, line and paragraph
 * separators, tag characters beyond the BMP, invalid and cut UTF-8. */
static const char * const hostile[] = {
  "",
  "plain text",
  "quote \" backslash \\ slash /",
  "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19"
  "\x1a\x1b\x1c\x1d\x1e\x1f\x7f",
  "Deploy \u202Etxt.exe now, \u2066admin\u2069",
  "zero\u200Bwidth, joiner \u200D kept, \u00A0 no-break",
  "C1 \xc2\x85 \xc2\x9b and \u2028 \u2029",
  "tag \U000E0041\U000E0042, emoji \U0001F600, \u3164 filler",
  "invalid \xff\xfe bytes, cut \xe2\x80",
  "é ü ß 日本語",
};

static JsonNode *
hostile_tree (void)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "strings");
  json_builder_begin_array (builder);
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    json_builder_add_string_value (builder, hostile[i]);
  json_builder_end_array (builder);
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      /* As names too. */
      json_builder_set_member_name (builder, hostile[i]);
      json_builder_add_int_value (builder, i);
    }
  json_builder_set_member_name (builder, "empty array");
  json_builder_begin_array (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "empty object");
  json_builder_begin_object (builder);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "nested");
  json_builder_begin_array (builder);
  json_builder_begin_array (builder);
  json_builder_end_array (builder);
  json_builder_begin_object (builder);
  json_builder_end_object (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "deep");
  json_builder_begin_array (builder);
  json_builder_add_null_value (builder);
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_add_int_value (builder, G_MININT64);
  json_builder_add_int_value (builder, G_MAXINT64);
  json_builder_add_int_value (builder, 0);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "null");
  json_builder_add_null_value (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static void
test_hostile (void)
{
  g_autoptr(JsonNode) tree = hostile_tree ();
  g_autofree char *expected = generated (tree);
  g_autofree char *got = written (tree);

  g_assert_cmpstr (got, ==, expected);

  /* Every byte alone, and a string of each byte between letters. */
  for (guint c = 1; c < 256; c++)
    {
      char text[8] = { 'a', (char) c, 'b', 0 };
      g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);
      g_autofree char *want = generated (node);
      g_autofree char *have = written (node);

      g_assert_cmpstr (have, ==, want);
    }

  /* Bare values at the top. */
  {
    g_autoptr(JsonArray) array = json_array_new ();
    g_autoptr(JsonObject) object = json_object_new ();
    g_autoptr(JsonNode) empty_array = json_node_init_array (json_node_alloc (), array);
    g_autoptr(JsonNode) empty_object = json_node_init_object (json_node_alloc (), object);
    g_autoptr(JsonNode) null = json_node_init_null (json_node_alloc ());
    JsonNode *tops[] = { empty_array, empty_object, null };

    for (guint i = 0; i < G_N_ELEMENTS (tops); i++)
      {
        g_autofree char *want = generated (tops[i]);
        g_autofree char *have = written (tops[i]);

        g_assert_cmpstr (have, ==, want);
      }
  }
}

/* Through a file, in pieces as it fills: the same bytes. */
static void
test_file (void)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) tree = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  PdJsonWriter writer;
  FILE *file;
  int fd;

  json_builder_begin_array (builder);
  for (guint i = 0; i < 20000; i++)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, hostile[i % G_N_ELEMENTS (hostile)]);
      json_builder_set_member_name (builder, "n");
      json_builder_add_int_value (builder, i);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  tree = json_builder_get_root (builder);
  expected = generated (tree);

  fd = g_file_open_tmp ("pd-json-writer-XXXXXX", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  file = fdopen (fd, "w");
  g_assert_nonnull (file);
  pd_json_writer_init (&writer, file);
  write_node (&writer, NULL, tree);
  g_assert_null (pd_json_writer_finish (&writer));
  g_assert_cmpint (fclose (file), ==, 0);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpuint (strlen (expected), >, 512 * 1024);
  g_assert_cmpstr (contents, ==, expected);
  g_unlink (path);
}

/* Every session of @scanner's folders, with and without its plans' text,
 * and the files passed over: written as `import --json` printed them. */
static void
check_sessions (PdImportScanner *scanner)
{
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_import_skip_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = pd_import_scanner_scan_full (scanner, skipped, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, >, 0);
  for (guint with_plans = 0; with_plans < 2; with_plans++)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();
      JsonArray *array = json_array_new ();
      g_autofree char *expected = NULL;
      g_autofree char *got = NULL;
      PdJsonWriter writer;

      for (guint i = 0; i < sessions->len; i++)
        json_array_add_element (array, pd_imported_session_to_json (g_ptr_array_index (sessions, i), with_plans));
      json_object_set_array_member (object, "sessions", array);
      json_object_set_int_member (object, "count", sessions->len);
      json_object_set_member (object, "skipped", pd_import_skips_to_json (skipped));
      json_node_take_object (root, object);
      expected = generated (root);

      pd_json_writer_init (&writer, NULL);
      pd_json_writer_begin_object (&writer, NULL);
      pd_json_writer_begin_array (&writer, "sessions");
      for (guint i = 0; i < sessions->len; i++)
        pd_imported_session_write_json (g_ptr_array_index (sessions, i), with_plans, &writer);
      pd_json_writer_end_array (&writer);
      pd_json_writer_int (&writer, "count", sessions->len);
      pd_import_skips_write_json (skipped, &writer, "skipped");
      pd_json_writer_end_object (&writer);
      got = pd_json_writer_finish (&writer);
      g_assert_cmpstr (got, ==, expected);
    }
}

static void
test_sessions (void)
{
  const char *root = g_getenv ("PD_FIXTURES_DIR");
  g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
  g_autofree char *claude = g_build_filename (root, "claude-code", NULL);
  g_autofree char *codex = g_build_filename (root, "codex", NULL);
  g_autofree char *opencode = g_build_filename (root, "opencode", NULL);
  g_autofree char *qwen = g_build_filename (root, "qwen", "projects", NULL);
  g_autofree char *gemini = g_build_filename (root, "gemini", "tmp", NULL);
  g_autofree char *vscode = g_build_filename (root, "vscode", NULL);
  g_autofree char *none = g_build_filename (root, "no-such-folder", NULL);

  g_assert_nonnull (root);
  pd_import_scanner_set_claude_dir (scanner, claude);
  pd_import_scanner_set_codex_dir (scanner, codex);
  pd_import_scanner_set_opencode_dir (scanner, opencode);
  pd_import_scanner_set_qwen_dir (scanner, qwen);
  pd_import_scanner_set_gemini_dir (scanner, gemini);
  pd_import_scanner_set_vscode_dir (scanner, vscode);
  pd_import_scanner_set_kilo_dir (scanner, none);
  check_sessions (scanner);
}

/* The shared third-party recordings, when they are beside the tree. */
static void
test_sessions_shared (void)
{
  const char *root = g_getenv ("PD_SHARED_FIXTURES_DIR");
  g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
  g_autofree char *claude = NULL;
  g_autofree char *codex = NULL;
  g_autofree char *opencode = NULL;
  g_autofree char *none = NULL;

  if (root == NULL || !g_file_test (root, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("../shared/fixtures is not beside the source tree");
      return;
    }
  claude = g_build_filename (root, "claude-code", NULL);
  codex = g_build_filename (root, "codex", NULL);
  opencode = g_build_filename (root, "opencode", NULL);
  none = g_build_filename (root, "no-such-folder", NULL);
  pd_import_scanner_set_claude_dir (scanner, claude);
  pd_import_scanner_set_codex_dir (scanner, codex);
  pd_import_scanner_set_opencode_dir (scanner, opencode);
  pd_import_scanner_set_qwen_dir (scanner, none);
  pd_import_scanner_set_gemini_dir (scanner, none);
  pd_import_scanner_set_vscode_dir (scanner, none);
  pd_import_scanner_set_kilo_dir (scanner, none);
  check_sessions (scanner);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/json-writer/hostile", test_hostile);
  g_test_add_func ("/pd/json-writer/file", test_file);
  g_test_add_func ("/pd/json-writer/sessions", test_sessions);
  g_test_add_func ("/pd/json-writer/sessions-shared", test_sessions_shared);

  return g_test_run ();
}
