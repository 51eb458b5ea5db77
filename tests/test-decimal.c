/* test-decimal.c: whole decimal numbers for options, headers and JSON.
 *
 * They stand in for g_ascii_string_to_unsigned(), so they must refuse what it
 * refuses (signs, spaces, hex, empty text, overflow) and read the rest alike.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-decimal"

#include "config.h"

#include <glib.h>

#include "pd-decimal.h"

static void
assert_reads (const char *text,
              guint64     max,
              guint64     expected)
{
  guint64 value = 12345;

  if (!pd_decimal_parse (text, -1, max, &value))
    g_error ("“%s” (max %" G_GUINT64_FORMAT ") was refused", text, max);
  g_assert_cmpuint (value, ==, expected);
}

static void
assert_refused (const char *text,
                guint64     max)
{
  guint64 value = 12345;

  if (pd_decimal_parse (text, -1, max, &value))
    g_error ("“%s” (max %" G_GUINT64_FORMAT ") was read as %" G_GUINT64_FORMAT, text, max, value);
  /* A refusal leaves the output alone. */
  g_assert_cmpuint (value, ==, 12345);
}

static void
test_reads (void)
{
  assert_reads ("0", 0, 0);
  assert_reads ("15", 15, 15);
  assert_reads ("007", 10, 7);
  assert_reads ("65535", 65535, 65535);
  assert_reads ("18446744073709551615", G_MAXUINT64, G_MAXUINT64);
  assert_reads ("9223372036854775808", (guint64) G_MAXINT64 + 1, (guint64) G_MAXINT64 + 1);

  /* A length reads a prefix; what follows does not count. */
  {
    guint64 value = 0;

    g_assert_true (pd_decimal_parse ("42abc", 2, 100, &value));
    g_assert_cmpuint (value, ==, 42);
    g_assert_true (pd_decimal_parse ("7", 1, 9, NULL));
  }
}

static void
test_refuses (void)
{
  assert_refused ("", G_MAXUINT64);
  assert_refused (NULL, G_MAXUINT64);
  assert_refused ("-1", G_MAXUINT64);
  assert_refused ("+1", G_MAXUINT64);
  assert_refused (" 1", G_MAXUINT64);
  assert_refused ("1 ", G_MAXUINT64);
  assert_refused ("0x10", G_MAXUINT64);
  assert_refused ("1.0", G_MAXUINT64);
  assert_refused ("1e3", G_MAXUINT64);
  assert_refused ("١", G_MAXUINT64);  /* a digit, but not an ASCII one */
  assert_refused ("65536", 65535);
  assert_refused ("1", 0);
  assert_refused ("10", 9);
  assert_refused ("18446744073709551616", G_MAXUINT64);
  assert_refused ("99999999999999999999999", G_MAXUINT64);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/decimal/reads", test_reads);
  g_test_add_func ("/pd/decimal/refuses", test_refuses);

  return g_test_run ();
}
