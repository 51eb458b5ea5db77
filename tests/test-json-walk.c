/* test-json-walk.c: the one walk's shortcuts (pd-json-picked.c) against
 * references that do not take them.
 *
 * The walk that checks a foreign document and finds the members a reader
 * picks looks up each key of an array's elements in a small hash table of
 * the picked names (by length, first and last byte), passes white space
 * and digits sixteen bytes at a time, and skips strings with their escapes
 * in one loop.  Each is compared here with what the span functions
 * (pd_json_span_get_member(), which compare keys unescaped, one at a time)
 * and the whole parse give, on keys made to collide in the table, names
 * past what the table holds, and white space and numbers around the
 * sixteen-byte blocks and the end of the text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-json-span.h"

/* Names that share length, first and last byte with others ("type",
 * "tape", "txpe"), a prefix, the empty name, non-ASCII ones and the same
 * name twice (the first is the one found, as find_span_pick() finds it). */
static const PdJsonSpanPick near_names[] = {
  { "type", 1 }, { "tape", 2 }, { "ask", 3 }, { "say", 4 }, { "ts", 5 }, { "text", 6 }, { "", 7 },
  { "a", 8 }, { "ab", 9 }, { "t\xc3\xa8xt", 10 }, { "type", 11 }, { "t", 12 }, { "tt", 13 }, { NULL },
};
/* More names than the table holds: looked up one at a time. */
static const PdJsonSpanPick many_names[] = {
  { "n0", 1 }, { "n1", 2 }, { "n2", 3 }, { "n3", 4 }, { "n4", 5 }, { "n5", 6 }, { "n6", 7 }, { "n7", 8 },
  { "n8", 9 }, { "n9", 10 }, { "na", 11 }, { "nb", 12 }, { "nc", 13 }, { "nd", 14 }, { "ne", 15 },
  { "nf", 16 }, { "type", 17 }, { "text", 18 }, { NULL },
};
#define ROW 20

/* Keys as written: the names, near misses of each, escaped forms of the
 * names and a key a "\u0000" cuts to one. */
static const char * const keys[] = {
  "type", "tape", "txpe", "tyype", "typ", "typE", "Type", "ask", "aSk", "asK", "say", "sAy", "ts", "tS", "t",
  "tt", "text", "txxt", "texT", "", "a", "ab", "aa", "b", "t\xc3\xa8xt", "t\xc3\xa9xt", "\\u0074ype",
  "ty\\u0070e", "tex\\u0074", "te\\u0000xt", "t\\u0000", "n0", "n5", "nf", "ng", "n", "n00",
};

static const char * const values[] = {
  "1", "\"s\"", "\"a \\\"quoted\\\" \\\\ \\u00e9 \\ud83d\\ude00 string\"", "{\"type\":\"inner\"}", "[1,[2]]",
  "null", "true", "-12.5e3", "\"\"",
};

static const char * const blanks[] = { "", " ", "\n  ", "\t", "\r\n", "                    \n" };

static const char *
pick_of (GRand *rand, const char * const *list, guint n)
{
  return list[g_rand_int_range (rand, 0, (gint32) n)];
}

/* A document of @n elements, most objects of random members. */
static char *
make_document (GRand *rand,
               guint  n)
{
  GString *doc = g_string_new ("[");

  for (guint i = 0; i < n; i++)
    {
      guint members = (guint) g_rand_int_range (rand, 0, 7);

      if (i > 0)
        g_string_append (doc, pick_of (rand, blanks, G_N_ELEMENTS (blanks)));
      if (i > 0)
        g_string_append_c (doc, ',');
      if (g_rand_int_range (rand, 0, 10) == 0)
        {
          g_string_append (doc, pick_of (rand, values, G_N_ELEMENTS (values)));
          continue;
        }
      g_string_append_c (doc, '{');
      for (guint m = 0; m < members; m++)
        {
          g_string_append_printf (doc, "%s%s\"%s\"%s:%s%s", m > 0 ? "," : "",
                                  pick_of (rand, blanks, G_N_ELEMENTS (blanks)),
                                  pick_of (rand, keys, G_N_ELEMENTS (keys)),
                                  pick_of (rand, blanks, G_N_ELEMENTS (blanks)),
                                  pick_of (rand, blanks, G_N_ELEMENTS (blanks)),
                                  pick_of (rand, values, G_N_ELEMENTS (values)));
        }
      g_string_append (doc, pick_of (rand, blanks, G_N_ELEMENTS (blanks)));
      g_string_append_c (doc, '}');
    }
  g_string_append (doc, "]");
  return g_string_free (doc, FALSE);
}

static void
check_document (const char           *doc,
                const PdJsonSpanPick *names)
{
  const PdJsonSpanPick pick = { "", 0, NULL, names, 0, ROW };
  PdJsonSpan found[ROW] = { { NULL, 0 } };
  PdJsonSpanTable table;
  PdJsonSpan element;
  gsize cursor = 0;
  guint row = 0;

  pd_json_span_table_init (&table, 1 << 20);
  g_assert_true (pd_json_check_spans_value (doc, strlen (doc), &pick, found, &table, NULL));
  while (pd_json_span_next_element (found[0], &cursor, &element))
    {
      const PdJsonSpan *spans = &g_array_index (table.rows, PdJsonSpan, (gsize) row * ROW);

      g_assert_cmpuint ((gsize) (row + 1) * ROW, <=, table.rows->len);
      g_assert_true (spans[0].text == element.text && spans[0].length == element.length);
      for (const PdJsonSpanPick *p = names; p->name != NULL; p++)
        {
          PdJsonSpan expected = { NULL, 0 };
          gboolean again = FALSE;

          /* A name picked twice: its value goes to the first. */
          for (const PdJsonSpanPick *q = names; q < p; q++)
            again = again || strcmp (q->name, p->name) == 0;
          if (again || !pd_json_span_is_object (element) || !pd_json_span_get_member (element, p->name, &expected))
            expected = (PdJsonSpan) { NULL, 0 };
          if (spans[p->slot].length != expected.length
              || (expected.length > 0 && spans[p->slot].text != expected.text))
            g_error ("member \"%s\" (slot %u): %.*s where the span functions give %.*s in %.*s", p->name, p->slot,
                     (int) spans[p->slot].length, spans[p->slot].text ? spans[p->slot].text : "",
                     (int) expected.length, expected.text ? expected.text : "", (int) element.length, element.text);
        }
      row++;
    }
  g_assert_cmpuint ((gsize) row * ROW, ==, table.rows->len);
  pd_json_span_table_clear (&table);
}

/* Each element's members found by the hash table of names as the span
 * functions find them: a key equal to a name in length, first and last
 * byte but not between is no member, an escaped key is its name, the
 * first of two equal names is the one filled; more names than the table
 * holds, one at a time, alike. */
static void
test_element_keys (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261205);

  for (guint round = 0; round < 300; round++)
    {
      g_autofree char *doc = make_document (rand, (guint) g_rand_int_range (rand, 1, 40));

      check_document (doc, near_names);
      check_document (doc, many_names);
    }
}

/* A member's span and whether the text is taken, against a reference
 * that does not skip: the whole parse for numbers, and for white space
 * the rule itself (space, tab, newline, carriage return; any other byte
 * refused). */
static void
check_member (const char *before,
              const char *value,
              const char *after,
              gboolean    taken)
{
  static const PdJsonSpanPick names[] = { { "a", 0 }, { NULL } };
  g_autofree char *text = g_strdup_printf ("%s{\"a\":%s%s}%s", before, value, after, before);
  PdJsonSpan found[1] = { { NULL, 0 } };
  gboolean ok = pd_json_check_spans (text, strlen (text), names, found, NULL, NULL);

  if (ok != taken)
    g_error ("%s: %s", taken ? "refused" : "taken", text);
  if (ok)
    {
      const char *at = strstr (text, "\"a\":") + 4;

      if (found[0].text != at || found[0].length != strlen (value))
        g_error ("value %.*s where it is %s in %s", (int) found[0].length, found[0].text, value, text);
    }
  g_assert_cmpint (pd_json_check_foreign (text, -1, NULL), ==, taken);
}

static void
test_blanks_and_digits (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (5122026);
  g_autoptr(GString) digits = g_string_new (NULL);
  const char *ws = " \t\n\r";

  /* White space of 0 to 40 bytes before and after the document and its
   * value, with a byte that is none (\f, \v, NUL-free controls, a
   * non-breaking space) at any place of the run or none. */
  for (guint length = 0; length <= 40; length++)
    for (guint round = 0; round < 12; round++)
      {
        g_autoptr(GString) run = g_string_new (NULL);
        gboolean bad = round % 3 == 2 && length > 0;

        for (guint i = 0; i < length; i++)
          g_string_append_c (run, ws[g_rand_int_range (rand, 0, 4)]);
        if (bad)
          {
            const char *others[] = { "\f", "\v", "\x01", "\x1f", "\xc2\xa0", "x" };
            const char *other = others[g_rand_int_range (rand, 0, G_N_ELEMENTS (others))];
            guint at = (guint) g_rand_int_range (rand, 0, (gint32) length);

            g_string_erase (run, at, 1);
            g_string_insert (run, at, other);
          }
        check_member (run->str, "1", "", !bad);
        check_member ("", "\"v\"", run->str, !bad);
        check_member (run->str, "[1]", run->str, !bad);
      }

  /* Numbers of 1 to 40 digits, whole and with a fraction of as many,
   * followed by what ends them or breaks them, with more or fewer than
   * sixteen bytes after them: taken as the whole parse takes them. */
  for (guint n = 1; n <= 40; n++)
    {
      const char *ends[] = { "", " ", ".", ".5", "e5", "E-1", "x", "-", "0" };

      g_string_append_c (digits, (char) ('1' + n % 9));
      for (guint e = 0; e < G_N_ELEMENTS (ends); e++)
        for (guint fraction = 0; fraction < 2; fraction++)
          {
            g_autofree char *number = g_strdup_printf ("%s%s%s%s", digits->str, fraction ? "." : "",
                                                       fraction ? digits->str : "", ends[e]);
            g_autofree char *whole = g_strdup_printf ("{\"a\":%s}", number);
            g_autoptr(JsonNode) node = pd_json_parse_full (whole, -1, PD_JSON_PARSE_FOREIGN, NULL);
            gboolean taken = node != NULL;
            const char *value = number;
            g_autofree char *trimmed = NULL;

            /* The span of a number followed by a blank is the number. */
            if (taken && g_str_has_suffix (number, " "))
              value = trimmed = g_strndup (number, strlen (number) - 1);
            check_member ("", value, taken && value != number ? " " : "", taken);
            check_member ("", value, taken && value != number ? "                  " : "", taken);
          }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/json-walk/element-keys", test_element_keys);
  g_test_add_func ("/pd/json-walk/blanks-and-digits", test_blanks_and_digits);
  return g_test_run ();
}
