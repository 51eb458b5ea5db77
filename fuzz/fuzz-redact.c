/* fuzz-redact.c: the store's redaction, pd_redact() and pd_redact_json().
 *
 * The input is redacted as text and as JSON.  Never a crash; valid UTF-8
 * in is valid UTF-8 out; pd_redact_json() of a JSON document is a JSON
 * document; and a second redaction changes nothing of substance
 * (same_substance()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <json-glib/json-glib.h>

#include "pd-redact.h"
#include "pd-fuzz.h"

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  pd_fuzz_init_logging ();
  return 0;
}

/* The signs that end or join a command, and the masks, of @text. */
static void
count_signs (const char *text,
             GString    *signs,
             guint      *masks)
{
  *masks = 0;
  for (const char *p = text; *p; p++)
    {
      if (strchr (";&|<>\n`", *p) != NULL)
        g_string_append_c (signs, *p);
      if (*p == '$' && p[1] == '(')
        g_string_append_c (signs, '$');
      if (strncmp (p, PD_REDACTED, strlen (PD_REDACTED)) == 0)
        (*masks)++;
    }
}

/* A second redaction changes nothing of substance: it hides no sign of
 * what the shell runs that the first left in sight, and takes back no
 * mask.  (It may mask more: a quoted part is read to 256 bytes, and the
 * masks of the first redaction can make one fit, or take a quote that a
 * reading paired; the inputs the fuzzer found of that kind are in
 * /pd/redact/fuzz-found.) */
static gboolean
same_substance (const char *once,
                const char *twice)
{
  g_autoptr(GString) a = g_string_new (NULL);
  g_autoptr(GString) b = g_string_new (NULL);
  guint masks_a, masks_b;

  if (strcmp (once, twice) == 0)
    return TRUE;
  count_signs (once, a, &masks_a);
  count_signs (twice, b, &masks_b);
  return strcmp (a->str, b->str) == 0 && masks_b >= masks_a;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *text = NULL;
  g_autofree char *once = NULL;
  g_autofree char *twice = NULL;
  g_autofree char *json_once = NULL;
  g_autoptr(JsonNode) doc = NULL;
  gboolean utf8;

  if (size > 64 * 1024)
    return -1;
  text = g_strndup ((const char *) data, size);  /* up to a NUL: C text */
  utf8 = g_utf8_validate (text, -1, NULL);

  once = pd_redact (text, NULL);
  if (once == NULL || (utf8 && !g_utf8_validate (once, -1, NULL)))
    abort ();
  twice = pd_redact (once, NULL);
  if (!same_substance (once, twice))
    abort ();

  if (!utf8)
    return 0;
  json_once = pd_redact_json (text, NULL);
  if (json_once == NULL || !g_utf8_validate (json_once, -1, NULL))
    abort ();
  doc = json_from_string (text, NULL);
  if (doc != NULL)
    {
      g_autoptr(JsonNode) back = json_from_string (json_once, NULL);

      if (back == NULL)
        abort ();
    }
  return 0;
}
