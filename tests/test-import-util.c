/* test-import-util.c: the helpers every transcript reader leans on: the
 * needle prefilter and the time parser, against the slow obvious answers. */
#define _GNU_SOURCE
#include "config.h"

#include <string.h>

#include "pd-import-private.h"
#include "pd-import-test.h"

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
check_needles (const char * const *needles,
               guint32             seed)
{
  PdNeedles *compiled = _pd_needles_new (needles);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  const char *alphabet = "\"_abxyzTtu:{}\\ ";
  guint n_needles = g_strv_length ((char **) needles);

  for (guint round = 0; round < 20000; round++)
    {
      gsize length = (gsize) g_rand_int_range (rand, 0, 90);
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
  _pd_needles_free (compiled);
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-util/needles", test_needles);
  g_test_add_func ("/pd/import-util/needles-long-line", test_needles_long_line);
  g_test_add_func ("/pd/import-util/parse-time", test_parse_time);

  return g_test_run ();
}
