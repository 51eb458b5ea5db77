/* test-json.c: the strict JSON reader and canonical writer of the plan engine.
 *
 * Check arguments match by their canonical bytes, so the canonical form must
 * be exact; and rendered plan lines are parsed with the strict reader, so
 * everything ambiguous must be refused.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-json"

#include "config.h"

#include <string.h>

#include <glib.h>

#include "pd-json.h"

static void
assert_parse_error (const char *text,
                    gssize      length,
                    int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = pd_json_parse (text, length, &error);

  if (node != NULL)
    g_error ("parsed, but should not have: %s", text);
  g_assert_error (error, PD_JSON_ERROR, code);
}

static char *
canonical (const char *text)
{
  g_autoptr(GError) error = NULL;
  char *out = pd_json_canonicalize_text (text, &error);

  if (out == NULL)
    g_error ("did not canonicalize (%s): %s", error->message, text);
  return out;
}

static void
assert_canonical (const char *text,
                  const char *expected)
{
  g_autofree char *out = canonical (text);

  g_assert_cmpstr (out, ==, expected);
}

static char *
nested (const char *open,
        const char *inner,
        const char *close,
        guint       depth)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (out, open);
  g_string_append (out, inner);
  for (guint i = 0; i < depth; i++)
    g_string_append (out, close);
  return g_string_free (out, FALSE);
}

static void
assert_int (const char *text,
            gint64      expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = pd_json_parse (text, -1, &error);

  g_assert_no_error (error);
  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_INT64);
  g_assert_cmpint (json_node_get_int (node), ==, expected);
}

static void
assert_double (const char *text,
               double      expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = pd_json_parse (text, -1, &error);

  g_assert_no_error (error);
  g_assert_cmpint (json_node_get_value_type (node), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (node), ==, expected);
}

static void
test_integers (void)
{
  assert_int ("0", 0);
  assert_int ("15", 15);
  assert_int ("-0", 0);
  assert_int ("-15", -15);
  assert_int ("9223372036854775807", G_MAXINT64);
  assert_int ("-9223372036854775808", G_MININT64);
  /* One past either end is no longer an integer, but still a number. */
  assert_double ("9223372036854775808", 9223372036854775808.0);
  assert_double ("-9223372036854775809", -9223372036854775808.0);
  assert_double ("15.0", 15.0);
  assert_double ("1e2", 100.0);
}

/* Whole numbers read as whole numbers whatever the other threads do. The
 * reader once trusted errno after g_ascii_strtoll(), whose first call in a
 * process takes GLib's once-lock; when another thread held it, the futex wait
 * left errno at EAGAIN and "15" was read as not whole. Each subprocess is a
 * fresh process whose first number is parsed while threads crowd that lock. */
static volatile gint crowd_running;

static gpointer
crowd_once_lock (gpointer data)
{
  while (g_atomic_int_get (&crowd_running))
    {
      gsize *location = g_new0 (gsize, 1);

      if (g_once_init_enter (location))
        g_once_init_leave (location, 1);
      g_free (location);
    }
  return NULL;
}

/* Run as its own process (argv[1] == FIRST_PARSE_CHILD) before g_test_init(),
 * which parses numbers of its own: 0 when "15" read as the whole number 15. */
#define FIRST_PARSE_CHILD "--first-parse-child"

static int
first_parse_child (void)
{
  GThread *threads[8];
  g_autoptr(JsonNode) node = NULL;
  JsonNode *delay;

  g_atomic_int_set (&crowd_running, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("crowd", crowd_once_lock, NULL);
  g_usleep (2000);

  node = pd_json_parse ("{\"delay_ms\":15}", -1, NULL);

  g_atomic_int_set (&crowd_running, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);

  if (node == NULL)
    return 2;
  delay = json_object_get_member (json_node_get_object (node), "delay_ms");
  if (json_node_get_value_type (delay) != G_TYPE_INT64 || json_node_get_int (delay) != 15)
    return 1;
  return 0;
}

static char *self_path;

static void
test_integers_first_parse (void)
{
  for (guint round = 0; round < 40; round++)
    {
      const char *argv[] = { self_path, FIRST_PARSE_CHILD, NULL };
      g_autoptr(GError) error = NULL;
      int status = -1;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                   NULL, NULL, &status, &error));
      g_assert_no_error (error);
      if (!g_spawn_check_wait_status (status, &error))
        g_error ("round %u: the first number parsed beside a crowded once-lock: %s", round, error->message);
    }
}

static void
test_strict (void)
{
  static const char nul_inside[] = "{\"a\":\"x\0y\"}";

  assert_parse_error ("{\"a\":1,\"a\":2}", -1, PD_JSON_ERROR_DUPLICATE_KEY);
  assert_parse_error ("{\"a\":{\"b\":1,\"b\":1}}", -1, PD_JSON_ERROR_DUPLICATE_KEY);
  /* The same key spelled with an escape is the same key. */
  assert_parse_error ("{\"a\":1,\"\\u0061\":2}", -1, PD_JSON_ERROR_DUPLICATE_KEY);

  assert_parse_error ("{} {}", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("{}x", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[1,]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("{\"a\":1,}", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("{'a':1}", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[01]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[+1]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[1.]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[.5]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[NaN]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[1e999]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[tru]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("   ", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[\"\\x\"]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[\"\\u12\"]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[\"unterminated]", -1, PD_JSON_ERROR_SYNTAX);

  /* Raw control characters inside strings. */
  assert_parse_error ("[\"a\nb\"]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[\"a\tb\"]", -1, PD_JSON_ERROR_SYNTAX);
  assert_parse_error ("[\"a\x01" "b\"]", -1, PD_JSON_ERROR_SYNTAX);

  /* Encoding: invalid UTF-8, lone surrogates, NUL. */
  assert_parse_error ("[\"\xff\"]", -1, PD_JSON_ERROR_ENCODING);
  assert_parse_error ("[\"\xc3\"]", -1, PD_JSON_ERROR_ENCODING);
  assert_parse_error ("[\"\xed\xa0\x80\"]", -1, PD_JSON_ERROR_ENCODING);
  assert_parse_error ("[\"\\ud800\"]", -1, PD_JSON_ERROR_ENCODING);
  assert_parse_error ("[\"\\udc00\"]", -1, PD_JSON_ERROR_ENCODING);
  assert_parse_error ("[\"\\ud800\\u0041\"]", -1, PD_JSON_ERROR_ENCODING);
  assert_parse_error ("[\"\\ud800x\"]", -1, PD_JSON_ERROR_ENCODING);
  assert_parse_error ("[\"\\u0000\"]", -1, PD_JSON_ERROR_ENCODING);
  assert_parse_error (nul_inside, sizeof nul_inside - 1, PD_JSON_ERROR_ENCODING);

  /* A valid pair is fine. */
  {
    g_autoptr(JsonNode) node = pd_json_parse ("[\"\\ud83d\\udccb\"]", -1, NULL);

    g_assert_nonnull (node);
    g_assert_cmpstr (json_array_get_string_element (json_node_get_array (node), 0), ==, "\xf0\x9f\x93\x8b");
  }

  /* A length bounds the text. */
  {
    g_autoptr(JsonNode) node = pd_json_parse ("{\"a\":1}garbage", 7, NULL);

    g_assert_nonnull (node);
    g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  }
}

static void
test_depth (void)
{
  g_autofree char *arrays64 = nested ("[", "1", "]", 64);
  g_autofree char *arrays65 = nested ("[", "1", "]", 65);
  g_autofree char *objects64 = nested ("{\"a\":", "1", "}", 64);
  g_autofree char *objects65 = nested ("{\"a\":", "1", "}", 65);
  g_autofree char *deep = nested ("[", "", "]", 100000);
  g_autoptr(JsonNode) ok_arrays = pd_json_parse (arrays64, -1, NULL);
  g_autoptr(JsonNode) ok_objects = pd_json_parse (objects64, -1, NULL);

  g_assert_nonnull (ok_arrays);
  g_assert_nonnull (ok_objects);
  assert_parse_error (arrays65, -1, PD_JSON_ERROR_DEPTH);
  assert_parse_error (objects65, -1, PD_JSON_ERROR_DEPTH);
  assert_parse_error (deep, -1, PD_JSON_ERROR_DEPTH);
}

static void
test_canonical (void)
{
  /* Sorted keys at every level, no whitespace. */
  assert_canonical (" { \"b\" : 1 , \"a\" : { \"z\" : [ { \"y\" : 1 , \"x\" : 2 } ] , \"m\" : null } } ",
                    "{\"a\":{\"m\":null,\"z\":[{\"x\":2,\"y\":1}]},\"b\":1}");
  /* Byte order of keys, so upper case sorts first. */
  assert_canonical ("{\"b\":1,\"B\":2,\"a\":3,\"\xc3\xa9\":4,\"aa\":5}",
                    "{\"B\":2,\"a\":3,\"aa\":5,\"b\":1,\"\xc3\xa9\":4}");

  /* Number spelling. */
  assert_canonical ("{\"a\":1.0,\"b\":1e0,\"c\":1E+2,\"d\":-0.125e2,\"e\":0.1,\"f\":100,\"g\":-7}",
                    "{\"a\":1,\"b\":1,\"c\":100,\"d\":-12.5,\"e\":0.1,\"f\":100,\"g\":-7}");
  assert_canonical ("{\"a\":2.5e-3,\"b\":9007199254740993}", "{\"a\":0.0025,\"b\":9007199254740993}");
  assert_canonical ("{\"t\":true,\"f\":false,\"n\":null,\"s\":\"\",\"o\":{},\"l\":[]}",
                    "{\"f\":false,\"l\":[],\"n\":null,\"o\":{},\"s\":\"\",\"t\":true}");

  /* HTML-safe escaping and line separators; other text stays raw. */
  assert_canonical ("{\"s\":\"<a href='x'>&</a>\"}", "{\"s\":\"\\u003ca href='x'\\u003e\\u0026\\u003c/a\\u003e\"}");
  assert_canonical ("{\"s\":\"\xe2\x80\xa8|\\u2029|\xc3\xa9|\\u00e9|\xe2\x80\x94\"}",
                    "{\"s\":\"\\u2028|\\u2029|\xc3\xa9|\xc3\xa9|\xe2\x80\x94\"}");
  assert_canonical ("{\"s\":\"\\\"\\\\\\/\\n\\r\\t\\u0001\\u001f\"}",
                    "{\"s\":\"\\\"\\\\/\\n\\r\\t\\u0001\\u001f\"}");

  /* Spelled differently, canonically equal. */
  {
    g_autofree char *a = canonical ("{\"cmd\":\"make\",\"env\":{\"A\":1,\"B\":[1.0,2]}}");
    g_autofree char *b = canonical ("{\"env\":{\"B\":[1,2.0e0],\"A\":1.00},\"cmd\":\"ma\\u006be\"}");

    g_assert_cmpstr (a, ==, b);
  }

  /* Only objects canonicalize. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) array = pd_json_parse ("[1]", -1, NULL);

    g_assert_null (pd_json_canonicalize_text ("[1]", NULL));
    g_assert_null (pd_json_canonicalize_text ("\"x\"", NULL));
    g_assert_null (pd_json_canonicalize_text ("{} trailing", NULL));
    g_assert_null (pd_json_canonicalize_object (array, &error));
    g_assert_error (error, PD_JSON_ERROR, PD_JSON_ERROR_SYNTAX);
    g_assert_null (pd_json_canonicalize_object (NULL, NULL));
  }
}

static void
test_append_string (void)
{
  g_autoptr(GString) out = g_string_new (NULL);

  pd_json_append_string (out, "a\"b\\c\x7f<>&\xe2\x80\xa8\xf0\x9f\x93\x8b");
  g_assert_cmpstr (out->str, ==, "\"a\\\"b\\\\c\\u007f\\u003c\\u003e\\u0026\\u2028\xf0\x9f\x93\x8b\"");
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if (argc == 2 && g_str_equal (argv[1], FIRST_PARSE_CHILD))
    return first_parse_child ();

  self_path = g_canonicalize_filename (argv[0], NULL);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/plan/json/strict", test_strict);
  g_test_add_func ("/pd/plan/json/depth", test_depth);
  g_test_add_func ("/pd/plan/json/integers", test_integers);
  g_test_add_func ("/pd/plan/json/integers-first-parse", test_integers_first_parse);
  g_test_add_func ("/pd/plan/json/canonical", test_canonical);
  g_test_add_func ("/pd/plan/json/append-string", test_append_string);

  status = g_test_run ();
  g_free (self_path);
  return status;
}
