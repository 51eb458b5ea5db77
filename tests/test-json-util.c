/* test-json-util.c: the typed reads of JSON members every reader shares.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-json-util"

#include "config.h"

#include "pd-json-util.h"

static JsonObject *
parse (const char *text,
       JsonNode  **root)
{
  GError *error = NULL;

  *root = json_from_string (text, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (*root));
  return json_node_get_object (*root);
}

static const char sample[] =
  "{\"s\":\"text\",\"empty\":\"\",\"i\":7,\"neg\":-3,\"d\":2.9,\"dneg\":-2.9,\"huge\":1e300,"
  "\"t\":true,\"f\":false,\"n\":null,\"o\":{\"inner\":\"deep\"},\"a\":[1,\"x\"]}";

/* Every getter answers every member: the right type, or missing. */
static void
test_types (void)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = parse (sample, &root);

  g_assert_cmpstr (pd_json_get_string (object, "s"), ==, "text");
  g_assert_cmpstr (pd_json_get_string (object, "empty"), ==, "");
  for (const char * const *m = (const char * const[]) { "i", "t", "n", "o", "a", "missing", NULL }; *m; m++)
    g_assert_null (pd_json_get_string (object, *m));

  g_assert_cmpstr (pd_json_get_string (pd_json_get_object (object, "o"), "inner"), ==, "deep");
  g_assert_null (pd_json_get_object (object, "a"));
  g_assert_null (pd_json_get_object (object, "n"));
  g_assert_null (pd_json_get_object (object, "s"));

  g_assert_cmpuint (json_array_get_length (pd_json_get_array (object, "a")), ==, 2);
  g_assert_null (pd_json_get_array (object, "o"));
  g_assert_null (pd_json_get_array (object, "n"));

  g_assert_true (pd_json_get_boolean (object, "t", FALSE));
  g_assert_false (pd_json_get_boolean (object, "f", TRUE));
  /* Not a boolean: the fallback, whichever it is. */
  for (const char * const *m = (const char * const[]) { "i", "s", "n", "o", "missing", NULL }; *m; m++)
    {
      g_assert_true (pd_json_get_boolean (object, *m, TRUE));
      g_assert_false (pd_json_get_boolean (object, *m, FALSE));
    }
}

static void
test_numbers (void)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = parse (sample, &root);

  g_assert_cmpint (pd_json_get_int (object, "i", -1), ==, 7);
  g_assert_cmpint (pd_json_get_int (object, "neg", -1), ==, -3);
  /* Truncated toward zero. */
  g_assert_cmpint (pd_json_get_int (object, "d", -1), ==, 2);
  g_assert_cmpint (pd_json_get_int (object, "dneg", -1), ==, -2);
  /* Beyond gint64: converting it would be undefined behaviour. */
  g_assert_cmpint (pd_json_get_int (object, "huge", -1), ==, -1);
  for (const char * const *m = (const char * const[]) { "s", "t", "n", "o", "a", "missing", NULL }; *m; m++)
    g_assert_cmpint (pd_json_get_int (object, *m, 42), ==, 42);
}

static void
test_ids (void)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = parse (sample, &root);
  g_autofree char *s = pd_json_dup_id (object, "s");
  g_autofree char *i = pd_json_dup_id (object, "i");
  g_autofree char *neg = pd_json_dup_id (object, "neg");

  g_assert_cmpstr (s, ==, "text");
  g_assert_cmpstr (i, ==, "7");
  g_assert_cmpstr (neg, ==, "-3");
  /* An empty string names nothing; a fraction is no id. */
  for (const char * const *m = (const char * const[]) { "empty", "d", "t", "n", "o", "a", "missing", NULL }; *m; m++)
    g_assert_null (pd_json_dup_id (object, *m));
}

static void
test_optional_string (void)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = parse (sample, &root);
  const char *value = "unset";

  g_assert_true (pd_json_get_optional_string (object, "s", &value));
  g_assert_cmpstr (value, ==, "text");
  g_assert_true (pd_json_get_optional_string (object, "n", &value));
  g_assert_null (value);
  value = "unset";
  g_assert_true (pd_json_get_optional_string (object, "missing", &value));
  g_assert_null (value);
  for (const char * const *m = (const char * const[]) { "i", "t", "o", "a", NULL }; *m; m++)
    {
      value = "unset";
      g_assert_false (pd_json_get_optional_string (object, *m, &value));
      g_assert_null (value);
    }
  value = "unset";
  g_assert_true (pd_json_get_optional_string (NULL, "s", &value));
  g_assert_null (value);
}

/* A missing parent reads as a missing member: chains need no checks. */
static void
test_null_object (void)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = parse (sample, &root);

  g_assert_null (pd_json_get_string (NULL, "s"));
  g_assert_null (pd_json_get_object (NULL, "o"));
  g_assert_null (pd_json_get_array (NULL, "a"));
  g_assert_true (pd_json_get_boolean (NULL, "t", TRUE));
  g_assert_cmpint (pd_json_get_int (NULL, "i", 5), ==, 5);
  g_assert_null (pd_json_dup_id (NULL, "i"));
  g_assert_null (pd_json_get_member (NULL, "s"));
  g_assert_null (pd_json_get_member (object, "missing"));
  g_assert_true (pd_json_get_member (object, "s") == json_object_get_member (object, "s"));
  g_assert_null (pd_json_get_string (pd_json_get_object (object, "missing"), "inner"));
  g_assert_null (pd_json_node_get_string (NULL));
  g_assert_cmpstr (pd_json_node_get_string (json_object_get_member (object, "s")), ==, "text");
  g_assert_null (pd_json_node_get_string (json_object_get_member (object, "i")));
}

/* An array's elements: an object or an integer where there is one, NULL
 * or the fallback for any other element, past the end and for no array. */
static void
test_array_elements (void)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = parse ("{\"a\":[{\"k\":\"v\"},7,2.9,\"8\",null,[1],true,{}]}", &root);
  JsonArray *array = pd_json_get_array (object, "a");

  g_assert_cmpstr (pd_json_get_string (pd_json_array_get_object (array, 0), "k"), ==, "v");
  g_assert_nonnull (pd_json_array_get_object (array, 7));
  for (guint i = 1; i < 7; i++)
    g_assert_null (pd_json_array_get_object (array, i));
  g_assert_null (pd_json_array_get_object (array, 8));
  g_assert_null (pd_json_array_get_object (array, G_MAXUINT));
  g_assert_null (pd_json_array_get_object (NULL, 0));

  g_assert_cmpint (pd_json_array_get_int (array, 1, -1), ==, 7);
  g_assert_cmpint (pd_json_array_get_int (array, 2, -1), ==, 2);
  for (guint i = 3; i < 9; i++)
    g_assert_cmpint (pd_json_array_get_int (array, i, -1), ==, -1);
  g_assert_cmpint (pd_json_array_get_int (array, 0, -1), ==, -1);
  g_assert_cmpint (pd_json_array_get_int (NULL, 0, 4), ==, 4);
}

/* A message's content: none, a string, or parts whose objects' texts are
 * joined, whatever else stands among them, with the separator only between
 * texts; anything else is the caller's to show. */
static void
test_content_text (void)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = parse ("{\"parts\":[{\"type\":\"text\",\"text\":\"one\"},\"loose\",{\"text\":7},"
                              "{\"type\":\"image\"},null,{\"text\":\"two\"},[{\"text\":\"nested\"}],"
                              "{\"text\":\"\"},{\"text\":\"three\"}],"
                              "\"none\":[1,{\"t\":\"x\"}],\"empty_first\":[{\"text\":\"\"},{\"text\":\"a\"}],"
                              "\"s\":\"plain\",\"n\":null,\"i\":7,\"o\":{\"text\":\"x\"}}",
                              &root);
  g_autofree char *joined = pd_json_content_text (pd_json_get_member (object, "parts"), "\n\n");
  g_autofree char *plain = pd_json_content_text (pd_json_get_member (object, "parts"), "");
  g_autofree char *none = pd_json_content_text (pd_json_get_member (object, "none"), "\n");
  g_autofree char *empty_first = pd_json_content_text (pd_json_get_member (object, "empty_first"), "\n");
  g_autofree char *string = pd_json_content_text (pd_json_get_member (object, "s"), "\n");
  g_autofree char *null = pd_json_content_text (pd_json_get_member (object, "n"), "\n");
  g_autofree char *missing = pd_json_content_text (NULL, "\n");

  g_assert_cmpstr (joined, ==, "one\n\ntwo\n\n\n\nthree");
  g_assert_cmpstr (plain, ==, "onetwothree");
  g_assert_cmpstr (none, ==, "");
  g_assert_cmpstr (empty_first, ==, "a");
  g_assert_cmpstr (string, ==, "plain");
  g_assert_cmpstr (null, ==, "");
  g_assert_cmpstr (missing, ==, "");
  g_assert_null (pd_json_content_text (pd_json_get_member (object, "i"), "\n"));
  g_assert_null (pd_json_content_text (pd_json_get_member (object, "o"), "\n"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/json-util/types", test_types);
  g_test_add_func ("/pd/json-util/numbers", test_numbers);
  g_test_add_func ("/pd/json-util/ids", test_ids);
  g_test_add_func ("/pd/json-util/optional-string", test_optional_string);
  g_test_add_func ("/pd/json-util/null-object", test_null_object);
  g_test_add_func ("/pd/json-util/array-elements", test_array_elements);
  g_test_add_func ("/pd/json-util/content-text", test_content_text);

  return g_test_run ();
}
