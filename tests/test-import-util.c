/* test-import-util.c: the helpers every transcript reader leans on: the
 * needle prefilter, the time parser and the JSON reader, against the slow
 * obvious answers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-safe-text.h"

static const char * const claude_needles[] = {
  "\"TodoWrite\"", "\"TaskCreate\"", "\"TaskUpdate\"", "\"TaskList\"", "\"ExitPlanMode\"",
  "\"mcp__ccd_turn__", "\"task_reminder\"", "\"tool_result\"", "\"timestamp\":\"",
  "\"type\":\"summary\"", "\"entrypoint\":\"claude-desktop\"", "\"type\":\"user\"", NULL,
};
static const char * const codex_needles[] = {
  "update_plan", "\"plan_update\"", "proposed_plan", "\"Plan\"", "\"session_meta\"",
  "\"task_started\"", "_output\"", NULL,
};
/* Needles without punctuation, overlapping, and one a prefix of another. */
static const char * const plain_needles[] = { "ab", "aab", "xyz", "zz", "abab", NULL };

/* Lines of bytes the needles are made of, with pieces of needles spliced
 * in: every position, every line length around the vector width. */
static void
check_compiled (PdNeedles          *compiled,
                const char * const *needles,
                guint32             seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  const char *alphabet = "\"_abxyzTtu:{}\\ ";
  guint n_needles = g_strv_length ((char **) needles);

  for (guint round = 0; round < 20000; round++)
    {
      /* Around both vector widths, and lines of several blocks. */
      gsize length = (gsize) g_rand_int_range (rand, 0, round % 4 == 0 ? 200 : 90);
      g_autofree char *line = g_malloc (length + 1);
      const char *first[PD_NEEDLES_MAX];
      guint32 found, expected = 0;

      for (gsize i = 0; i < length;)
        {
          if (g_rand_int_range (rand, 0, 12) == 0)
            {
              const char *needle = needles[g_rand_int_range (rand, 0, (gint32) n_needles)];
              gsize cut = (gsize) g_rand_int_range (rand, 1, (gint32) strlen (needle) + 1);

              for (gsize k = 0; k < cut && i < length; k++)
                line[i++] = needle[k];
            }
          else
            line[i++] = alphabet[g_rand_int_range (rand, 0, (gint32) strlen (alphabet))];
        }
      line[length] = '\0';

      found = _pd_needles_scan (compiled, line, length, first);
      for (guint i = 0; needles[i]; i++)
        {
          const char *at = memmem (line, length, needles[i], strlen (needles[i]));

          if (at == NULL)
            continue;
          expected |= 1u << i;
          if (found & (1u << i))
            g_assert_true (first[i] == at);
        }
      if (found != expected)
        g_error ("needles %x, expected %x in \"%s\"", found, expected, line);
    }
}

static void
check_needles (const char * const *needles,
               guint32             seed)
{
  PdNeedles *compiled = _pd_needles_new (needles);
  guint n = g_strv_length ((char **) needles);
  PdNeedle chosen[PD_NEEDLES_MAX + 1] = { { NULL, 0, 0 } };

  check_compiled (compiled, needles, seed);
  _pd_needles_free (compiled);

  /* Every needle by a window of its own choosing (each place in turn, one
   * past the end too, which is cut back) and buckets shared every way. */
  for (guint shift = 0; shift < 4; shift++)
    {
      for (guint i = 0; i < n; i++)
        {
          chosen[i].text = needles[i];
          chosen[i].window = (guint8) ((i + shift) % (strlen (needles[i]) + 1));
          chosen[i].bucket = (guint8) ((i * (shift + 1)) % (shift + 2));
        }
      compiled = _pd_needles_new_chosen (chosen);
      check_compiled (compiled, needles, seed * 16 + shift);
      _pd_needles_free (compiled);
    }
}

static void
test_needles (void)
{
  check_needles (claude_needles, 1);
  check_needles (codex_needles, 2);
  check_needles (plain_needles, 3);
}

static void
test_needles_long_line (void)
{
  PdNeedles *compiled = _pd_needles_new (claude_needles);
  g_autoptr(GString) line = g_string_new ("{");
  const char *first[PD_NEEDLES_MAX];
  guint32 found;

  /* Escaped quotes inside text are not needles; the real one at the end is. */
  for (guint i = 0; i < 5000; i++)
    g_string_append (line, "word \\\"TodoWrit\\\" ");
  g_string_append (line, "\"TodoWrite\"}");
  found = _pd_needles_scan (compiled, line->str, line->len, first);
  g_assert_cmphex (found, ==, 1u);
  g_assert_true (first[0] == line->str + line->len - strlen ("\"TodoWrite\"}"));
  /* Shorter than every needle. */
  g_assert_cmphex (_pd_needles_scan (compiled, "\"T", 2, NULL), ==, 0);
  _pd_needles_free (compiled);
}

static gint64
glib_time (const char *text)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_iso8601 (text, NULL);

  if (time == NULL)
    return 0;
  return g_date_time_to_unix (time) * G_USEC_PER_SEC + g_date_time_get_microsecond (time);
}

static void
test_parse_time (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  static const char * const odd[] = {
    "2026-02-01T10:20:30Z", "2026-02-01T10:20:30.1Z", "2026-02-01T10:20:30.123456Z",
    "2026-02-01T10:20:30.1234567Z", "2026-02-01T10:20:30.123+02:00", "2026-02-01T10:20:30.123",
    "2026-02-01 10:20:30Z", "2026-02-29T10:20:30Z", "2024-02-29T23:59:59.999999Z",
    "2026-13-01T10:20:30Z", "2026-02-01T24:00:00Z", "2026-02-01T10:20:60Z", "2026-02-01T10:20:30.Z",
    "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "1969-12-31T23:59:59.5Z", "2026-02-01T10:20:30Zx",
    "garbage", "", NULL,
  };

  for (guint i = 0; odd[i]; i++)
    g_assert_cmpint (_pd_import_parse_time (odd[i]), ==, glib_time (odd[i]));

  /* A text that does not start with a digit is no time without asking
   * GLib: every byte that is no digit before times GLib reads, in its
   * other forms too (a week, a day of the year, a blank for the T, an
   * offset), and fixtures' placeholders, give what GLib gives (nothing). */
  {
    static const char * const readable[] = {
      "2026-02-01T10:20:30Z", "2026-02-01T10:20:30.123+02:00", "2026-02-01 10:20:30Z", "20260201T102030Z",
      "2026-W05-7T10:20:30Z", "2026-032T10:20:30Z", "2026-02-01t10:20:30Z", "2026-02-01T10:20:30-0530", NULL,
    };
    static const char * const placeholders[] = {
      "[trimmed for fixture]", "<redacted>", "T10:20:30Z", " 2026-02-01T10:20:30Z", "+2026-02-01T10:20:30Z",
      "-2026-02-01T10:20:30Z", "\\u0032" "026-02-01T10:20:30Z", "\xef\xbc\x92" "026-02-01T10:20:30Z", NULL,
    };

    for (guint i = 0; readable[i]; i++)
      {
        g_assert_cmpint (glib_time (readable[i]), !=, 0);
        g_assert_cmpint (_pd_import_parse_time (readable[i]), ==, glib_time (readable[i]));
        for (guint b = 1; b < 256; b++)
          {
            g_autofree char *text = NULL;

            if (g_ascii_isdigit (b))
              continue;
            text = g_strdup_printf ("%c%s", (int) b, readable[i]);
            if (glib_time (text) != 0 || _pd_import_parse_time (text) != 0)
              g_error ("0x%02x then %s: %" G_GINT64_FORMAT ", GLib %" G_GINT64_FORMAT, b, readable[i],
                       _pd_import_parse_time (text), glib_time (text));
            /* In place of the year's first digit, too. */
            g_free (text);
            text = g_strdup_printf ("%c%s", (int) b, readable[i] + 1);
            if (glib_time (text) != 0 || _pd_import_parse_time (text) != 0)
              g_error ("0x%02x for the first digit of %s: %" G_GINT64_FORMAT ", GLib %" G_GINT64_FORMAT, b,
                       readable[i], _pd_import_parse_time (text), glib_time (text));
          }
      }
    for (guint i = 0; placeholders[i]; i++)
      g_assert_cmpint (_pd_import_parse_time (placeholders[i]), ==, glib_time (placeholders[i]));
  }

  /* Random times with zero to six digits of fraction: to the microsecond
   * what GLib says. */
  for (guint i = 0; i < 50000; i++)
    {
      char text[64];
      guint digits = (guint) g_rand_int_range (rand, 0, 7);
      gint len = g_snprintf (text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d",
                             g_rand_int_range (rand, 1, 10000), g_rand_int_range (rand, 1, 13),
                             g_rand_int_range (rand, 1, 29), g_rand_int_range (rand, 0, 24),
                             g_rand_int_range (rand, 0, 60), g_rand_int_range (rand, 0, 60));

      if (digits > 0)
        {
          text[len++] = '.';
          for (guint d = 0; d < digits; d++)
            text[len++] = (char) ('0' + g_rand_int_range (rand, 0, 10));
        }
      text[len++] = 'Z';
      text[len] = '\0';
      if (_pd_import_parse_time (text) != glib_time (text))
        g_error ("%s: %" G_GINT64_FORMAT " != %" G_GINT64_FORMAT, text, _pd_import_parse_time (text), glib_time (text));
    }
}

/* pd_json_values_exceed()'s count, walked byte by byte as it was before
 * its first look (units_at_most()) at sixteen bytes at a time. */
static gsize
units_walked (const char *text,
              gsize       length)
{
  gsize units = 0;

  for (gsize i = 0; i < length; i++)
    {
      if (text[i] == '"')
        {
          for (i++; i < length && text[i] != '"'; i++)
            if (text[i] == '\\')
              i++;
          if (i >= length)
            break;
        }
      else if (text[i] == ',' || text[i] == ':' || text[i] == '[')
        units++;
      else if (text[i] == '{')
        units += 2;
    }
  return units;
}

/* The count's first look lets a text through only when it holds no more
 * units than allowed, counted inside strings too: each answer is the walk's,
 * at the bound, one under and one over, for texts of every length around
 * the sixteen-byte blocks, units in and out of strings, and runs of braces
 * long enough to fill a block's counters (2 a block, summed every 127). */
static void
test_values_exceed (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  static const char alphabet[] = "{}[],:\"\\ab";

  for (guint round = 0; round < 20000; round++)
    {
      gsize length = (gsize) g_rand_int_range (rand, 0, round < 10000 ? 80 : 3000);
      g_autofree char *text = g_malloc (length + 1);
      gsize units;

      for (gsize i = 0; i < length; i++)
        text[i] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      text[length] = '\0';
      units = units_walked (text, length);
      for (gssize d = -1; d <= 1; d++)
        if (units + d != (gsize) -1
            && pd_json_values_exceed (text, length, units + d) != (units > units + d))
          g_error ("%s: %" G_GSIZE_FORMAT " units, bound %" G_GSIZE_FORMAT, text, units, units + d);
    }
  /* Braces alone, outside and inside a string: 2 each, then none. */
  for (gsize n = 1; n <= 5000; n += (n < 300 ? 1 : 97))
    {
      g_autofree char *braces = g_strnfill (n, '{');
      g_autofree char *quoted = g_strdup_printf ("\"%s\"", braces);

      g_assert_true (pd_json_values_exceed (braces, n, 2 * n - 1));
      g_assert_false (pd_json_values_exceed (braces, n, 2 * n));
      g_assert_false (pd_json_values_exceed (quoted, n + 2, 0));
    }
}

static JsonNode *
random_node (GRand *rand,
             guint  depth)
{
  static const char * const texts[] = {
    "", "plain", "quote \" and backslash \\", "tab\tnew\nline", "ünïcödé ✓", "emoji 😀", "slash /", "\x01 control",
  };
  guint kind = (guint) g_rand_int_range (rand, 0, depth < 4 ? 7 : 5);

  switch (kind)
    {
    case 0: return json_node_init_null (json_node_alloc ());
    case 1: return json_node_init_boolean (json_node_alloc (), g_rand_boolean (rand));
    case 2: return json_node_init_int (json_node_alloc (), (gint64) g_rand_int (rand) - G_MAXINT32);
    case 3: return json_node_init_double (json_node_alloc (), g_rand_double_range (rand, -1e6, 1e6));
    case 4: return json_node_init_string (json_node_alloc (), texts[g_rand_int_range (rand, 0, G_N_ELEMENTS (texts))]);
    case 5:
      {
        g_autoptr(JsonArray) array = json_array_new ();
        for (gint i = g_rand_int_range (rand, 0, 4); i > 0; i--)
          json_array_add_element (array, random_node (rand, depth + 1));
        return json_node_init_array (json_node_alloc (), array);
      }
    default:
      {
        g_autoptr(JsonObject) object = json_object_new ();
        for (gint i = g_rand_int_range (rand, 0, 5); i > 0; i--)
          {
            char key[16];
            g_snprintf (key, sizeof key, "k%d", g_rand_int_range (rand, 0, 8));
            json_object_set_member (object, key, random_node (rand, depth + 1));
          }
        return json_node_init_object (json_node_alloc (), object);
      }
    }
}

/* Whatever json-glib writes, the import reads back to an equal tree. */
static void
test_json_round_trip (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint i = 0; i < 3000; i++)
    {
      g_autoptr(JsonNode) node = random_node (rand, 0);
      g_autofree char *text = json_to_string (node, g_rand_boolean (rand));
      g_autoptr(JsonNode) back = _pd_import_parse_json (text, -1);
      g_autoptr(JsonParser) parser = json_parser_new ();

      g_assert_nonnull (back);
      g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
      if (!json_node_equal (back, json_parser_get_root (parser)))
        g_error ("not read back equal: %s", text);
    }
}

static void
test_json_edges (void)
{
  static const struct { const char *text; gboolean ok; } cases[] = {
    { "{\"a\":1}", TRUE },
    { " {\"a\" : [1, 2.5, -3e2, true, false, null, \"\\u00e9\\ud83d\\ude00\"]} ", TRUE },
    { "{\"a\":\"x\ty\"}", TRUE },          /* raw control characters, as json-glib */
    { "{\"a\":1,\"a\":2}", TRUE },          /* the last value, as json-glib */
    { "{\"a\":1 /* c */}", FALSE },          /* what no agent writes */
    { "{'a':1}", FALSE },
    { "{\"a\":0x10}", FALSE },
    { "{\"a\":01}", FALSE },
    { "{\"a\":1}{}", FALSE },
    { "{\"a\":1,}", FALSE },
    { "{\"a\":\"\\ud800\"}", TRUE },      /* a lone surrogate: U+FFFD, below */
    { "{\"a\":\"\\x\"}", FALSE },
    { "{\"a\":tru}", FALSE },
    { "{\"a\":\"open}", FALSE },
    { "{\"a\":\"\xff\"}", FALSE },         /* not UTF-8 */
    { "{\"ts\":1e400,\"a\":1}", TRUE },   /* out of a double's range: that value alone is lost */
    { "{\"ts\":-1e400}", TRUE },
    { "", FALSE },
  };
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autoptr(JsonNode) repeated = _pd_import_parse_json ("{\"a\":1,\"a\":2}", -1);
  g_autoptr(JsonNode) nul = _pd_import_parse_json ("{\"a\":\"x\\u0000y\"}", -1);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = _pd_import_parse_json (cases[i].text, -1);
      if ((node != NULL) != cases[i].ok)
        g_error ("%s: %s", cases[i].text, node ? "read" : "refused");
    }

  /* A number beyond a double's range reads as null: the member is lost,
   * not the line (a Cline task with "ts":1e400 was lost whole). */
  {
    g_autoptr(JsonNode) huge = _pd_import_parse_json ("{\"ts\":1e400,\"a\":1}", -1);
    JsonObject *object = json_node_get_object (huge);

    g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (object, "ts")));
    g_assert_cmpint (pd_json_get_int (object, "ts", -7), ==, -7);
    g_assert_cmpint (pd_json_get_int (object, "a", 0), ==, 1);
  }

  /* Lone surrogates, as JavaScript's JSON.stringify writes them, read as
   * U+FFFD; a pair stays one character; what follows a lone half is kept. */
  {
    static const struct { const char *text; const char *value; } lone[] = {
      { "[\"a\\ud800\"]", "a\xef\xbf\xbd" },
      { "[\"\\udfff b\"]", "\xef\xbf\xbd b" },
      { "[\"\\ud800\\u0041\"]", "\xef\xbf\xbd" "A" },
      { "[\"\\ud800\\ud800\\udc00\"]", "\xef\xbf\xbd\xf0\x90\x80\x80" },
      { "[\"\\ud83d\\ude00\"]", "\xf0\x9f\x98\x80" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (lone); i++)
      {
        g_autoptr(JsonNode) node = _pd_import_parse_json (lone[i].text, -1);

        g_assert_nonnull (node);
        g_assert_cmpstr (json_array_get_string_element (json_node_get_array (node), 0), ==, lone[i].value);
      }
  }
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (repeated), "a"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (nul), "a"), ==, "x");

  /* Nesting is bounded (the parser recurses per level). */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  g_assert_null (_pd_import_parse_json (deep->str, (gssize) deep->len));
}

/* Bidi controls and other invisible format characters from a transcript
 * (a "Trojan Source" item: "Delete \u202Etxt.exe" shows as "Delete
 * exe.txt") are made visible; joiners that emoji and scripts need stay. */
static void
test_clean_text_invisible (void)
{
  static const struct { const char *in; const char *out; } cases[] = {
    { "Delete \u202Etxt.exe", "Delete <U+202E>txt.exe" },
    { "a\u202Ab\u202Bc\u202Cd\u202De", "a<U+202A>b<U+202B>c<U+202C>d<U+202D>e" },
    { "\u2066x\u2067y\u2068z\u2069", "<U+2066>x<U+2067>y<U+2068>z<U+2069>" },
    { "rlm\u200Fmark\u200B zw \uFEFFbom", "rlm<U+200F>mark<U+200B> zw <U+FEFF>bom" },
    { "tag \U000E0041\U000E007F", "tag <U+E0041><U+E007F>" },
    { "hangul\u3164filler", "hangul<U+3164>filler" },
    { "family \U0001F468\u200D\U0001F469 and \u0645\u200C\u06CC", "family \U0001F468\u200D\U0001F469 and \u0645\u200C\u06CC" },
    { "esc \x1b[31mred\x1b[0m", "esc [31mred [0m" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *clean = _pd_import_clean_text (cases[i].in);
      g_autofree char *line = pd_safe_text_line (cases[i].in);

      g_assert_cmpstr (clean, ==, cases[i].out);
      /* The terminal form is the same but for the control characters,
       * which become one space each and are not trimmed. */
      if (strchr (cases[i].in, 0x1b) == NULL)
        g_assert_cmpstr (line, ==, cases[i].out);
    }
  {
    g_autofree char *line = pd_safe_text_line ("bad \xff byte\nand line");
    g_assert_cmpstr (line, ==, "bad \xef\xbf\xbd byte and line");
  }
}

/* A command to approve shows what could make it read as another: a
 * padding of 300 braille blanks or 600 spaces that pushed "; touch …" out
 * of a card's two lines (tried as an attacker would), an escape, a
 * carriage return. */
static void
test_safe_text_approval (void)
{
  g_autoptr(GString) braille = g_string_new ("echo hello");
  g_autoptr(GString) spaces = g_string_new ("echo safe");
  g_autofree char *shown_braille = NULL;
  g_autofree char *shown_spaces = NULL;
  g_autofree char *shown_short = NULL;
  g_autofree char *shown_controls = NULL;
  g_autofree char *shown_script = NULL;

  for (guint i = 0; i < 300; i++)
    g_string_append (braille, "\u2800");
  g_string_append (braille, "; touch /tmp/x");
  g_string_append_printf (spaces, "%600s; touch /tmp/y", "");
  shown_braille = pd_safe_text_approval (braille->str);
  shown_spaces = pd_safe_text_approval (spaces->str);
  g_assert_cmpstr (shown_braille, ==, "echo hello[300 \u00d7 U+2800]; touch /tmp/x");
  g_assert_cmpstr (shown_spaces, ==, "echo safe[600 \u00d7 U+0020]; touch /tmp/y");

  /* Fewer than 32: each look-alike named, spaces and indentation kept. */
  shown_short = pd_safe_text_approval ("a\u2800\u00a0b  c\u3164d");
  g_assert_cmpstr (shown_short, ==, "a<U+2800><U+00A0>b  c<U+3164>d");
  shown_controls = pd_safe_text_approval ("ls\rrm -rf ~\x1b[2K\nok\r\n\u202Eend\xff");
  g_assert_cmpstr (shown_controls, ==, "ls<U+000D>rm -rf ~<U+001B>[2K\nok\n<U+202E>end\ufffd");
  shown_script = pd_safe_text_approval ("if true; then\n\techo \"  two  \"\nfi\n");
  g_assert_cmpstr (shown_script, ==, "if true; then\n\techo \"  two  \"\nfi\n");

  /* Runs of one kind cut by a joiner every 31 spaces: the whole padding is
   * still summed up (tried as an attacker would: 78 blanks pushed the tail
   * out of sight, unnamed). */
  {
    g_autoptr(GString) cut = g_string_new ("echo harmless");
    g_autofree char *shown = NULL;
    g_autofree char *joined_words = pd_safe_text_approval ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 ok");
    g_autofree char *indent = pd_safe_text_approval ("\t\t  x = 1\n");

    g_string_append_printf (cut, "%31s\u200c%31s\u200c%14s; touch /tmp/x", "", "", "");
    shown = pd_safe_text_approval (cut->str);
    g_assert_cmpstr (shown, ==, "echo harmless[78 \u00d7 U+0020 U+200C]; touch /tmp/x");
    /* A joiner in a word (Persian), and a short indentation, stay. */
    g_assert_cmpstr (joined_words, ==, "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 ok");
    g_assert_cmpstr (indent, ==, "\t\t  x = 1\n");
  }

  /* Marks piled on a letter draw over the lines around it: past two, each
   * is named; two (Vietnamese "ệ" as e + two marks) stay. */
  {
    g_autofree char *piled = pd_safe_text_approval ("x\u0305\u0305\u0305\u0305; touch /tmp/z");
    g_autofree char *two = pd_safe_text_approval ("e\u0323\u0302 ok");

    g_assert_cmpstr (piled, ==, "x\u0305\u0305<U+0305><U+0305>; touch /tmp/z");
    g_assert_cmpstr (two, ==, "e\u0323\u0302 ok");
  }
  /* A zero-width joiner or non-joiner between them does not start a new
   * pile; on a "=" (no script that joins) it is named too. */
  {
    g_autofree char *joined = pd_safe_text_approval ("=\u0305\u0305\u200c\u0305\u200d\u0305 ok");

    g_assert_cmpstr (joined, ==, "=\u0305\u0305<U+200C><U+0305><U+200D><U+0305> ok");
  }
}

/* The one table of what an approval escapes or names beyond controls
 * (pd_safe_text_is_hidden()): each class, and what stays by its place. */
static void
test_safe_text_hidden (void)
{
  static const gunichar hidden[] = {
    0x00A0, 0x1680, 0x2000, 0x200A, 0x202F, 0x205F, 0x3000,            /* look-alike blanks */
    0x034F, 0x17B4, 0x17B5, 0x180E, 0x2065, 0x2800,                     /* draw nothing */
    0x115F, 0x1160, 0x3164, 0xFFA0, 0xFEFF, 0x2060, 0x2064, 0x200B,     /* fillers, format */
    0xE0000, 0xE0001, 0xE0041, 0xE007F,                                 /* tags */
  };
  static const gunichar selectors[] = { 0xFE00, 0xFE0F, 0x180B, 0x180F, 0xE0100, 0xE01EF };

  for (gsize i = 0; i < G_N_ELEMENTS (hidden); i++)
    {
      g_test_message ("U+%04X", hidden[i]);
      g_assert_true (pd_safe_text_is_hidden ('a', hidden[i], 'b'));
      g_assert_true (pd_safe_text_is_hidden (0x4E00, hidden[i], 0x4E00));
    }
  for (gsize i = 0; i < G_N_ELEMENTS (selectors); i++)
    {
      g_test_message ("U+%04X", selectors[i]);
      /* On ASCII, a blank, at a start: nothing drawn; on a letter or a
       * symbol beyond ASCII it may choose the glyph. */
      g_assert_true (pd_safe_text_is_hidden ('m', selectors[i], ' '));
      g_assert_true (pd_safe_text_is_hidden (0x00A0, selectors[i], 0));
      g_assert_true (pd_safe_text_is_hidden (0, selectors[i], 'x'));
      g_assert_false (pd_safe_text_is_hidden (0x2764, selectors[i], 0));
      g_assert_false (pd_safe_text_is_hidden (0x8FBB, selectors[i], 0));
    }
  /* Joiners: between ASCII letters, at an end, hidden; in a Persian or
   * Devanagari word, in an emoji sequence, not. */
  g_assert_true (pd_safe_text_is_hidden ('a', 0x200C, 'b'));
  g_assert_true (pd_safe_text_is_hidden ('a', 0x200D, 'b'));
  g_assert_true (pd_safe_text_is_hidden (0x0645, 0x200C, 0));
  g_assert_true (pd_safe_text_is_hidden (0x0645, 0x200C, 'x'));
  g_assert_false (pd_safe_text_is_hidden (0x06CC, 0x200C, 0x062E));
  g_assert_false (pd_safe_text_is_hidden (0x094D, 0x200D, 0x0937));
  g_assert_false (pd_safe_text_is_hidden (0x1F468, 0x200D, 0x1F469));
  g_assert_false (pd_safe_text_is_hidden (0xFE0F, 0x200D, 0x1F5E8));
  /* Not hidden: letters, a space, a drawn tsheg (U+0F0C), controls (the
   * caller's: pd_tool_text_is_control()). */
  g_assert_false (pd_safe_text_is_hidden ('a', 'b', 'c'));
  g_assert_false (pd_safe_text_is_hidden ('a', ' ', 'c'));
  g_assert_false (pd_safe_text_is_hidden (0x0F40, 0x0F0C, 0));
  g_assert_false (pd_safe_text_is_hidden (0, 0x00E9, 0));

  /* pd_safe_text_approval() names them outside a run too. */
  {
    g_autofree char *named = pd_safe_text_approval ("rm -f victim\ufe0f x\u200dy \u2764\ufe0f");

    g_assert_cmpstr (named, ==, "rm -f victim<U+FE0F> x<U+200D>y \u2764\ufe0f");
  }
}

/* JSON printed on a terminal: the same value, the invisible characters as
 * escapes. */
static void
test_escape_json (void)
{
  const char *json = "{\"t\":\"Delete \u202Etxt.exe \U000E0041 \U0001F468\u200D\U0001F469\"}";
  g_autofree char *escaped = pd_safe_text_escape_json (json);
  g_autoptr(JsonNode) before = json_from_string (json, NULL);
  g_autoptr(JsonNode) after = json_from_string (escaped, NULL);

  g_assert_cmpstr (escaped, ==, "{\"t\":\"Delete \\u202etxt.exe \\udb40\\udc41 \U0001F468\u200D\U0001F469\"}");
  g_assert_nonnull (after);
  g_assert_true (json_node_equal (before, after));
}

/* A session's times in its JSON are what g_date_time_format() writes for
 * "%Y-%m-%dT%H:%M:%S.%fZ" (they are formatted without it, for speed): from
 * the first microsecond after 1970 to the last second GLib can hold. */
static void
test_session_times (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (18);
  const gint64 last = G_GINT64_CONSTANT (253402300799) * G_USEC_PER_SEC;

  for (guint round = 0; round < 3000; round++)
    {
      gint64 usec = round == 0 ? 1 : round == 1 ? last + 999999 : round == 2 ? last + 1000000
                    : g_rand_int_range (rand, 0, 4) == 0 ? (gint64) g_rand_int (rand) * G_USEC_PER_SEC
                    : (gint64) (g_rand_double (rand) * (double) last);
      g_autoptr(PdImportedSession) session = pd_imported_session_new (PD_IMPORT_SOURCE_CLAUDE_CODE, "/x.jsonl");
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GDateTime) seconds = g_date_time_new_from_unix_utc (usec / G_USEC_PER_SEC);
      g_autoptr(GDateTime) time = seconds ? g_date_time_add (seconds, usec % G_USEC_PER_SEC) : NULL;
      g_autofree char *expected = time ? g_date_time_format (time, "%Y-%m-%dT%H:%M:%S.%fZ") : NULL;
      JsonObject *object;

      pd_imported_session_note_time (session, usec);
      node = pd_imported_session_to_json (session, FALSE);
      object = json_node_get_object (node);
      g_assert_cmpstr (pd_json_get_string (object, "created_at"), ==, expected);
      g_assert_cmpstr (pd_json_get_string (object, "updated_at"), ==, expected);
    }
}

/* Every line a reader gives from the start, with its offset after it,
 * its counts and whether it ended without a newline. */
static char *
read_rest (PdJsonlReader *reader)
{
  GString *out = g_string_new (NULL);
  const char *line;
  gsize length;

  while (pd_jsonl_reader_next (reader, &line, &length, NULL))
    {
      g_assert_cmpuint (strlen (line), ==, length);
      g_string_append_printf (out, "[%s] %" G_GINT64_FORMAT " %d", line, (gint64) pd_jsonl_reader_get_offset (reader),
                              pd_jsonl_reader_last_was_unterminated (reader));
      if (pd_jsonl_reader_get_too_long (reader) > 0)
        g_string_append_printf (out, " too long: %" G_GSIZE_FORMAT, pd_jsonl_reader_get_too_long (reader));
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "lines %" G_GUINT64_FORMAT " too long %" G_GUINT64_FORMAT,
                          pd_jsonl_reader_get_n_lines (reader), pd_jsonl_reader_get_n_too_long (reader));
  return g_string_free (out, FALSE);
}

/* A reader that looked at the first lines (a small first read, a small
 * line cap, as the format's look reads) and is rewound reads the file as
 * a reader of its own would: after any number of lines looked at, the
 * buffer still holding the start or not (a line over the look's cap
 * dropped, the buffer moved on), "\r\n" and blank lines, an unterminated
 * last line. */
static void
test_jsonl_rewind (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "t.jsonl", NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;

  g_string_append (text, "{\"a\":1}\n{\"b\":2}\r\n\n");
  for (guint i = 0; i < 200; i++)
    g_string_append_c (text, 'x');
  g_string_append (text, "\n{\"c\":3}\r\n");
  for (guint i = 0; i < 50; i++)
    g_string_append_printf (text, "{\"n\":%u,\"pad\":\"%0*u\"}\n", i, (int) (i * 7 % 90), i);
  g_string_append (text, "{\"last\":true}");
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);

  {
    g_autoptr(PdJsonlReader) whole = pd_jsonl_reader_new (path, 0, 1000, FALSE, &error);

    g_assert_no_error (error);
    g_assert_cmpint (pd_jsonl_reader_get_size (whole), ==, (goffset) text->len);
    expected = read_rest (whole);
  }

  for (guint first = 0; first < 2; first++)
    for (guint looked = 0; looked < 60; looked++)
      {
        g_autoptr(PdJsonlReader) reader = pd_jsonl_reader_new (path, 0, 100, FALSE, &error);
        g_autofree char *got = NULL;
        const char *line;
        gsize length;

        g_assert_no_error (error);
        pd_jsonl_reader_set_first_read (reader, first ? 4096 : 64);
        for (guint i = 0; i < looked && pd_jsonl_reader_next (reader, &line, &length, NULL); i++)
          ;
        g_assert_true (pd_jsonl_reader_rewind (reader, &error));
        g_assert_no_error (error);
        pd_jsonl_reader_set_max_line (reader, 1000);
        got = read_rest (reader);
        g_assert_cmpstr (got, ==, expected);
      }
}

/* Lines over the cap, told in their place when asked: one that fits the
 * buffer (the cap and a byte), one dropped as it streamed past ("\r\n"
 * not counted), and an unterminated last one, each with its length and
 * none of its text; not counted too long then.  Held for the next read
 * (following a file), the last is not told.  Before, each was dropped
 * without a word, and a transcript's pages left it out unsaid. */
static void
test_jsonl_report_too_long (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "t.jsonl", NULL);
  g_autoptr(GString) text = g_string_new ("{\"a\":1}\n");
  g_autoptr(GError) error = NULL;

  g_string_append_printf (text, "%0101u\n{\"b\":2}\n", 0u);
  g_string_append_printf (text, "%0300u\r\n{\"c\":3}\n", 0u);
  g_string_append_printf (text, "%0250u", 0u);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);

  for (guint follow = 0; follow < 2; follow++)
    {
      g_autoptr(PdJsonlReader) reader = pd_jsonl_reader_new (path, 0, 100, follow, &error);
      g_autoptr(PdJsonlReader) silent = pd_jsonl_reader_new (path, 0, 100, follow, &error);
      g_autofree char *got = NULL;
      g_autofree char *quiet = NULL;

      g_assert_no_error (error);
      pd_jsonl_reader_set_report_too_long (reader, TRUE);
      got = read_rest (reader);
      g_assert_cmpstr (got, ==, follow ? "[{\"a\":1}] 8 0\n"
                                         "[] 110 0 too long: 101\n"
                                         "[{\"b\":2}] 118 0\n"
                                         "[] 420 0 too long: 300\n"
                                         "[{\"c\":3}] 428 0\n"
                                         "lines 6 too long 1"
                                       : "[{\"a\":1}] 8 0\n"
                                         "[] 110 0 too long: 101\n"
                                         "[{\"b\":2}] 118 0\n"
                                         "[] 420 0 too long: 300\n"
                                         "[{\"c\":3}] 428 0\n"
                                         "[] 678 1 too long: 250\n"
                                         "lines 6 too long 0");
      quiet = read_rest (silent);
      g_assert_cmpstr (quiet, ==, "[{\"a\":1}] 8 0\n[{\"b\":2}] 118 0\n[{\"c\":3}] 428 0\nlines 6 too long 3");
    }
  pd_test_remove_tree (dir);
}

/* A title cut from a long message says it is cut ("…"), at a word where
 * one is near the limit, and keeps to the limit "…" and all, so reading
 * back a stored title leaves it as it is.  (Titles were cut at 120
 * characters mid-word with nothing to say so: "…code review wi".) */
static void
test_title_from_text (void)
{
  g_autoptr(GString) words = g_string_new (NULL);
  g_autofree char *short_title = _pd_import_title_from_text ("Add a --json flag");
  g_autofree char *spaced = NULL;
  g_autofree char *again = NULL;
  g_autofree char *solid = NULL;
  g_autofree char *marks = NULL;
  g_autofree char *solid_text = g_strnfill (300, 'x');

  g_assert_cmpstr (short_title, ==, "Add a --json flag");

  while (words->len < 400)
    g_string_append (words, "review the tokenizer ");
  spaced = _pd_import_title_from_text (words->str);
  g_assert_true (g_str_has_suffix (spaced, "…"));
  g_assert_cmpint (g_utf8_strlen (spaced, -1), <=, PD_IMPORT_TITLE_MAX);
  g_assert_cmpint (g_utf8_strlen (spaced, -1), >=, PD_IMPORT_TITLE_MAX * 4 / 5);
  /* Cut after a whole word, with no space before the "…". */
  g_assert_true (g_str_has_suffix (spaced, "review…") || g_str_has_suffix (spaced, "the…")
                 || g_str_has_suffix (spaced, "tokenizer…"));
  again = _pd_import_title_from_text (spaced);
  g_assert_cmpstr (again, ==, spaced);

  solid = _pd_import_title_from_text (solid_text);
  g_assert_cmpint (g_utf8_strlen (solid, -1), ==, PD_IMPORT_TITLE_MAX);
  g_assert_true (g_str_has_suffix (solid, "x…"));

  /* Cleaned first: a line break is a space, a bidi override shown. */
  marks = _pd_import_title_from_text ("one\ntwo \u202e three");
  g_assert_cmpstr (marks, ==, "one two <U+202E> three");

  /* Markdown's hard line breaks are line breaks, not words (a title read
   * ":(\\ \\ This is the relevant CSS:\\ \\", tried as a new user would);
   * a backslash elsewhere stays. */
  {
    g_autofree char *breaks = _pd_import_title_from_text (":(\\\n\\\r\nThis is the relevant CSS:\\\n\\\n"
                                                           "a\\b C:\\path");

    g_assert_cmpstr (breaks, ==, ":( This is the relevant CSS: a\\b C:\\path");
  }
}

/* The format (and the session's id) the sniffing finds in @path, with the
 * first lines read in place and as picked trees: the same. */
static void
check_sniff_same (const char *path)
{
  for (guint ask = 0; ask < 2; ask++)
    {
      g_autofree char *id_in_place = NULL;
      g_autofree char *id_tree = NULL;
      g_autoptr(PdJsonlReader) opened = NULL;
      PdImportFormat in_place, tree;

      in_place = _pd_import_sniff_jsonl (path, ask ? &id_in_place : NULL, NULL);
      _pd_import_set_pick_lines (FALSE);
      tree = _pd_import_sniff_jsonl (path, ask ? &id_tree : NULL, NULL);
      _pd_import_set_pick_lines (TRUE);
      if (in_place != tree || g_strcmp0 (id_in_place, id_tree) != 0)
        g_error ("%s: sniffed in place as %s (%s), as a tree as %s (%s)", path,
                 _pd_import_format_name (in_place), id_in_place, _pd_import_format_name (tree), id_tree);
      /* And as the scanner opens it, to hand the reader over (it reads
       * whole lines, not only the file's head). */
      in_place = _pd_import_sniff_jsonl_open (path, NULL, &opened, NULL);
      g_clear_pointer (&opened, pd_jsonl_reader_free);
      _pd_import_set_pick_lines (FALSE);
      tree = _pd_import_sniff_jsonl_open (path, NULL, &opened, NULL);
      _pd_import_set_pick_lines (TRUE);
      if (in_place != tree)
        g_error ("%s: sniffed in place as %s, as a tree as %s, opened", path,
                 _pd_import_format_name (in_place), _pd_import_format_name (tree));
    }
}

static void
sniff_tree (const char *dir,
            guint      *n_files)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        sniff_tree (path, n_files);
      else if (g_str_has_suffix (name, ".jsonl") || g_str_has_suffix (name, ".json"))
        {
          check_sniff_same (path);
          (*n_files)++;
        }
    }
}

/* Lines made to tell the two apart: members met again, escaped and cut
 * keys and strings, values of the wrong kind, roots that are no object,
 * text that is no JSON. */
static const char * const sniff_lines[] = {
  "{\"type\":\"user\",\"sessionId\":\"a\"}",
  "{\"type\":\"us\\u0065r\",\"sessionId\":\"a\\u0000b\"}",
  "{\"type\":\"user\\u0000x\",\"sessionId\":\"\\u00e9\"}",
  "{\"type\":\"user\",\"type\":null,\"sessionId\":\"a\"}",
  "{\"type\":null,\"type\":\"summary\",\"sessionId\":7}",
  "{\"typ\\u0065\":\"assistant\",\"sessionId\":\"b\"}",
  "{\"type\\u0000x\":\"assistant\",\"sessionId\":\"c\"}",
  "{\"sessionId\":\"s\",\"projectHash\":null}",
  "{\"sessionId\":\"s\",\"projectHash\":1,\"type\":null}",
  "{\"sessionId\":1,\"projectHash\":\"h\"}",
  "{\"type\":\"response_item\",\"payload\":null}",
  "{\"type\":\"response_item\"}",
  "{\"type\":\"session_meta\",\"payload\":{\"id\":\"x\"},\"payload\":[1]}",
  "{\"type\":\"tool_result\",\"sessionId\":5}",
  "{\"type\":\"tool_result\"}",
  "{\"type\":\"assistant\",\"message\":{\"parts\":[]}}",
  "{\"type\":\"assistant\",\"message\":{\"parts\":[]},\"message\":{}}",
  "{\"type\":\"assistant\",\"message\":{\"parts\":[]},\"message\":\"x\"}",
  "{\"type\":\"assistant\",\"message\":{},\"message\":{\"parts\":[1]}}",
  "{\"type\":\"assistant\",\"message\":{\"parts\":{}}}",
  "{\"type\":\"assistant\",\"message\":{\"par\\u0074s\":[]}}",
  "{\"type\":\"assistant\",\"message\":[{\"parts\":[]}]}",
  "{\"type\":\"assistant\",\"parts\":[],\"message\":{\"content\":[]}}",
  "{\"type\":\"system\",\"systemPayload\":{}}",
  "{\"type\":\"system\",\"systemPayload\":[]}",
  "{\"type\":\"user\",\"message\":{\"content\":\"hi\",\"parts\":null}}",
  "[{\"type\":\"user\",\"sessionId\":\"a\"}]",
  "\"user\"",
  "{\"type\":\"user\",\"sessionId\":\"\\ud800\"}",
  "{\"type\":\"user\",\"sessionId\":\"a\"} x",
  "{\"type\":\"user\",\"sessionId\":\"\xff\"}",
  "{\"type\":\"user\",\"n\":1e999,\"sessionId\":\"a\"}",
  "{\"type\":\"user\",\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
  "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],\"sessionId\":\"a\"}",
};

static void
test_sniff_in_place (void)
{
  g_autofree char *fixtures = pd_import_test_fixtures (".");
  g_autofree char *dir = g_dir_make_tmp ("pd-sniff-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "session.jsonl", NULL);
  guint n_files = 0;

  /* Every fixture transcript. */
  sniff_tree (fixtures, &n_files);
  g_assert_cmpuint (n_files, >, 10);

  /* Each line alone, cut after each of its bytes, and before and after
   * each other line (the sniffing reads on past a line it cannot place). */
  for (guint i = 0; i < G_N_ELEMENTS (sniff_lines); i++)
    {
      gsize length = strlen (sniff_lines[i]);

      for (gsize cut = 0; cut <= length; cut++)
        {
          g_autofree char *text = g_strdup_printf ("%.*s\n", (int) cut, sniff_lines[i]);

          g_assert_true (g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
          check_sniff_same (path);
        }
      for (guint j = 0; j < G_N_ELEMENTS (sniff_lines); j++)
        {
          g_autofree char *text = g_strdup_printf ("%s\n%s\n", sniff_lines[i], sniff_lines[j]);

          g_assert_true (g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
          check_sniff_same (path);
        }
    }
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_sniff_in_place_shared (void)
{
  g_autofree char *shared = pd_import_test_shared_fixtures (".");
  guint n_files = 0;

  if (shared == NULL)
    return;
  sniff_tree (shared, &n_files);
  g_assert_cmpuint (n_files, >, 0);
}

/* A sparse file of @size bytes (no disk), with @tail written at its end. */
static char *
sparse_file (const char *dir,
             const char *name,
             goffset     size,
             const char *tail)
{
  char *path = g_build_filename (dir, name, NULL);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, size), ==, 0);
  if (tail != NULL)
    g_assert_cmpint (pwrite (fd, tail, strlen (tail), size), ==, (gssize) strlen (tail));
  close (fd);
  return path;
}

/* The format of @path and how long finding it took, in seconds; both ways
 * of looking (in place, and as a tree) and the look that keeps the reader
 * say the same. */
static PdImportFormat
sniff_timed (const char *path,
             double     *seconds)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(PdJsonlReader) opened = NULL;
  PdImportFormat format = _pd_import_sniff_jsonl (path, NULL, NULL);

  g_assert_cmpint (_pd_import_sniff_jsonl_open (path, NULL, &opened, NULL), ==, format);
  *seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
  return format;
}

/* Tried as an attacker would (att15): a sparse file in an agent's folder,
 * one line of NULs, was read whole before it was called no transcript
 * (4 GiB: 35 s); so were 3 GiB of NULs before a valid line (33 s).  The
 * look stops at a NUL, and reads at most 32 MiB; a real first line of a
 * few MiB (a pasted image) is still read past. */
static void
test_sniff_sparse (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-sniff-sparse-XXXXXX", &error);
  const char *claude = "\n{\"type\":\"user\",\"sessionId\":\"s1\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
  g_autofree char *whole = sparse_file (dir, "whole.jsonl", (goffset) 4 << 30, NULL);
  g_autofree char *before = sparse_file (dir, "before.jsonl", (goffset) 3 << 30, claude);
  g_autofree char *short_nul = sparse_file (dir, "short.jsonl", 16, claude);
  g_autofree char *image = g_build_filename (dir, "image.jsonl", NULL);
  g_autofree char *torn = g_build_filename (dir, "torn.jsonl", NULL);
  g_autoptr(GString) text = g_string_new ("{\"type\":\"user\",\"message\":{\"content\":\"");
  double seconds;

  g_assert_no_error (error);
  for (guint pass = 0; pass < 2; pass++)
    {
      _pd_import_set_pick_lines (pass == 0);
      g_assert_cmpint (sniff_timed (whole, &seconds), ==, PD_IMPORT_FORMAT_UNKNOWN);
      g_test_message ("4 GiB sparse: %.3f s", seconds);
      g_assert_cmpfloat (seconds, <, 2.0);
      g_assert_cmpint (sniff_timed (before, &seconds), ==, PD_IMPORT_FORMAT_UNKNOWN);
      g_test_message ("3 GiB of NULs, then a line: %.3f s", seconds);
      g_assert_cmpfloat (seconds, <, 2.0);
      g_assert_cmpint (sniff_timed (short_nul, &seconds), ==, PD_IMPORT_FORMAT_UNKNOWN);
    }
  _pd_import_set_pick_lines (TRUE);

  /* A first line of 3 MiB, then the session's: a transcript. */
  while (text->len < 3 * 1024 * 1024)
    g_string_append (text, "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk");
  g_string_append (text, "\"}}");
  g_string_append (text, claude);
  g_assert_true (g_file_set_contents (image, text->str, (gssize) text->len, &error));
  g_assert_cmpint (sniff_timed (image, &seconds), ==, PD_IMPORT_FORMAT_CLAUDE);
  /* A transcript torn by a crash, its end NULs: still one. */
  g_string_assign (text, claude + 1);
  g_string_append_len (text, "\0\0\0\0", 4);
  g_assert_true (g_file_set_contents (torn, text->str, (gssize) text->len, &error));
  g_assert_cmpint (sniff_timed (torn, &seconds), ==, PD_IMPORT_FORMAT_CLAUDE);

  pd_test_remove_tree (dir);
}

/* A whole document known by its place and its first byte, read through
 * the descriptor the sniff opened (the file is opened once, not again to
 * look at its start): white space before the byte passed over within the
 * first 256 bytes, none there is none; a symbolic link is refused.  And
 * pd_jsonl_reader_read_head() reads the start without moving the reader. */
static void
test_sniff_documents (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-sniff-documents-XXXXXX", &error);
  g_autofree char *spaces = g_strnfill (300, ' ');
  g_autofree char *late = g_strconcat (spaces, "[]", NULL);
  const struct { const char *rel; const char *text; PdImportFormat format; } cases[] = {
    { "tasks/1/ui_messages.json", " \n\t[{\"type\":\"say\"}]", PD_IMPORT_FORMAT_CLINE },
    { "tasks/2/ui_messages.json", "{}", PD_IMPORT_FORMAT_UNKNOWN },
    { "tasks/3/ui_messages.json", "", PD_IMPORT_FORMAT_UNKNOWN },
    { "tasks/4/ui_messages.json", late, PD_IMPORT_FORMAT_UNKNOWN },
    { "chats/session-a.json", "\r\n{\"messages\":[]}", PD_IMPORT_FORMAT_GEMINI_JSON },
    { "chats/session-b.json", "[]", PD_IMPORT_FORMAT_UNKNOWN },
    { "other/ui_messages.json", "[]", PD_IMPORT_FORMAT_UNKNOWN },
  };
  g_autofree char *link = g_build_filename (dir, "tasks", "5", "ui_messages.json", NULL);
  g_autofree char *lines = g_build_filename (dir, "lines.jsonl", NULL);

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *parts[] = { cases[i].text, NULL };
      g_autofree char *path = pd_import_test_write (dir, cases[i].rel, parts);

      g_assert_cmpint (_pd_import_sniff_jsonl (path, NULL, NULL), ==, cases[i].format);
      if (i == 0)
        {
          g_autofree char *parent = g_path_get_dirname (link);

          g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
          g_assert_cmpint (symlink (path, link), ==, 0);
          g_assert_cmpint (_pd_import_sniff_jsonl (link, NULL, NULL), ==, PD_IMPORT_FORMAT_UNKNOWN);
        }
    }

  g_assert_true (g_file_set_contents (lines, "abc\ndef\n", -1, &error));
  {
    g_autoptr(PdJsonlReader) reader = pd_jsonl_reader_new (lines, 0, 100, FALSE, &error);
    char head[16] = { 0 };
    const char *line;
    gsize length;

    g_assert_no_error (error);
    g_assert_true (pd_jsonl_reader_next (reader, &line, &length, NULL));
    g_assert_cmpmem (line, length, "abc", 3);
    g_assert_cmpint (pd_jsonl_reader_read_head (reader, head, 3), ==, 3);
    g_assert_cmpmem (head, 3, "abc", 3);
    g_assert_cmpint (pd_jsonl_reader_read_head (reader, head, sizeof head), ==, 8);
    g_assert_true (pd_jsonl_reader_next (reader, &line, &length, NULL));
    g_assert_cmpmem (line, length, "def", 3);
    g_assert_false (pd_jsonl_reader_next (reader, &line, &length, NULL));
  }
  pd_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-util/title-from-text", test_title_from_text);
  g_test_add_func ("/pd/import-util/needles", test_needles);
  g_test_add_func ("/pd/import-util/needles-long-line", test_needles_long_line);
  g_test_add_func ("/pd/import-util/parse-time", test_parse_time);
  g_test_add_func ("/pd/import-util/values-exceed", test_values_exceed);
  g_test_add_func ("/pd/import-util/json-round-trip", test_json_round_trip);
  g_test_add_func ("/pd/import-util/json-edges", test_json_edges);
  g_test_add_func ("/pd/import-util/clean-text-invisible", test_clean_text_invisible);
  g_test_add_func ("/pd/import-util/escape-json", test_escape_json);
  g_test_add_func ("/pd/import-util/safe-text-approval", test_safe_text_approval);
  g_test_add_func ("/pd/import-util/safe-text-hidden", test_safe_text_hidden);
  g_test_add_func ("/pd/import-util/session-times", test_session_times);
  g_test_add_func ("/pd/import-util/jsonl-rewind", test_jsonl_rewind);
  g_test_add_func ("/pd/import-util/jsonl-report-too-long", test_jsonl_report_too_long);
  g_test_add_func ("/pd/import-util/sniff-in-place", test_sniff_in_place);
  g_test_add_func ("/pd/import-util/sniff-in-place-shared", test_sniff_in_place_shared);
  g_test_add_func ("/pd/import-util/sniff-sparse", test_sniff_sparse);
  g_test_add_func ("/pd/import-util/sniff-documents", test_sniff_documents);

  return g_test_run ();
}
