/* pd-plan-text.c: normalization and token rules for plan text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <string.h>

#include "pd-plan-error.h"
#include "pd-plan-text.h"

G_DEFINE_QUARK (pd-plan-error-quark, pd_plan_error)

/**
 * pd_plan_text_normalize:
 * @text: UTF-8 text from the model
 *
 * Flattens @text to one render line: line breaks (CR, LF, U+2028, U+2029)
 * and every other control character become spaces, em dashes become
 * hyphens, and surrounding whitespace is trimmed.
 *
 * Returns: (transfer full): the normalized text
 */
char *
pd_plan_text_normalize (const char *text)
{
  GString *out;

  if (text == NULL)
    return g_strdup ("");

  out = g_string_sized_new (strlen (text));

  for (const char *p = text; *p; )
    {
      guchar c = (guchar) *p;

      if (c < 0x20 || c == 0x7f)
        {
          g_string_append_c (out, ' ');
          p++;
        }
      else if (c == 0xE2 && (guchar) p[1] == 0x80 && (guchar) p[2] == 0x94)
        {
          g_string_append_c (out, '-');   /* U+2014 EM DASH */
          p += 3;
        }
      else if (c == 0xE2 && (guchar) p[1] == 0x80 && ((guchar) p[2] == 0xA8 || (guchar) p[2] == 0xA9))
        {
          g_string_append_c (out, ' ');   /* U+2028, U+2029 */
          p += 3;
        }
      else if (c == 0xC2 && (guchar) p[1] >= 0x80 && (guchar) p[1] <= 0x9F)
        {
          g_string_append_c (out, ' ');   /* C1 controls, NEL among them */
          p += 2;
        }
      else
        {
          g_string_append_c (out, *p);
          p++;
        }
    }

  g_strstrip (out->str);
  out->len = strlen (out->str);

  return g_string_free (out, FALSE);
}

gboolean
pd_plan_text_is_normalized (const char *text)
{
  g_autofree char *normalized = pd_plan_text_normalize (text);

  return g_strcmp0 (normalized, text) == 0;
}

/* Normalized text always follows a space in a render ("s1 [pending] TITLE",
 * "TITLE — NOTE"), so text that begins with the marker's tail becomes the
 * marker once rendered and is reserved too. */
gboolean
pd_plan_text_has_reserved (const char *text)
{
  return text != NULL && (strstr (text, PD_PLAN_CHECKS_MARKER) != NULL ||
                          g_str_has_prefix (text, PD_PLAN_CHECKS_MARKER + 1));
}

gboolean
pd_plan_text_has_control (const char *text)
{
  for (const char *p = text; p && *p; p++)
    if ((guchar) *p < 0x20 || (guchar) *p == 0x7f)
      return TRUE;
  return FALSE;
}

glong
pd_plan_text_length (const char *text)
{
  return text ? g_utf8_strlen (text, -1) : 0;
}

static gboolean
token_is_valid (const char *id,
                glong       max_chars,
                const char *forbidden)
{
  if (id == NULL || *id == '\0')
    return FALSE;

  if (g_utf8_strlen (id, -1) > max_chars)
    return FALSE;

  for (const char *p = id; *p; p = g_utf8_next_char (p))
    {
      gunichar ch = g_utf8_get_char (p);

      if (ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch <= 0x9f))
        return FALSE;
      if (g_unichar_isspace (ch) || ch == 0x2028 || ch == 0x2029 || ch == 0x2014)
        return FALSE;
      if (ch < 0x80 && strchr (forbidden, (int) ch) != NULL)
        return FALSE;
    }

  return TRUE;
}

/* Step ids are short tokens: no whitespace, no brackets, at most 32
 * characters.  Square brackets delimit the status in a render line; angle
 * brackets would let an id that begins a line pass for the untrusted-content
 * wrapper's tag ("<untrusted_content_…"), and the render would not parse
 * back. */
gboolean
pd_plan_step_id_is_valid (const char *id)
{
  return token_is_valid (id, 32, "[]<>");
}

/* Check ids also may not hold '/', which joins step and check in "s1/c1". */
gboolean
pd_plan_check_id_is_valid (const char *id)
{
  return token_is_valid (id, 32, "[]<>/");
}
