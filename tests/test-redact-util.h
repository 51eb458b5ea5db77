/* test-redact-util.h: what the redactor's test programs share.
 *
 * test-redact.c tries shell text and commands; test-redact-json.c tries
 * JSON documents, tool call arguments and rendered plans.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include "pd-redact.h"

static inline char *
redact (const char *text,
        guint      *n)
{
  return pd_redact (text, n);
}

static inline void
assert_redacted (const char *input,
                 const char *expected,
                 guint       expected_count)
{
  guint n = 99;
  g_autofree char *out = redact (input, &n);

  g_assert_cmpstr (out, ==, expected);
  g_assert_cmpuint (n, ==, expected_count);
}

/* A text with a secret: redacted as expected, the secret gone. */
typedef struct
{
  const char *input;
  const char *expected;
  const char *secret;
} RedactCase;

/* Each case redacted as it expects, its secret nowhere in the result,
 * with one redaction each (@one_each) or at least one. */
static inline void
assert_cases (const RedactCase *cases,
              gsize             n_cases,
              gboolean          one_each)
{
  for (gsize i = 0; i < n_cases; i++)
    {
      guint n = 0;
      g_autofree char *out = redact (cases[i].input, &n);

      g_assert_cmpstr (out, ==, cases[i].expected);
      g_assert_null (strstr (out, cases[i].secret));
      if (one_each)
        g_assert_cmpuint (n, ==, 1);
      else
        g_assert_cmpuint (n, >=, 1);
    }
}

/* Each text kept as it is, nothing redacted. */
static inline void
assert_kept (const char * const *texts,
             gsize               n_texts)
{
  for (gsize i = 0; i < n_texts; i++)
    assert_redacted (texts[i], texts[i], 0);
}
