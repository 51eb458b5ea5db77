/* fuzz-redact.c: the store's redaction, pd_redact() and pd_redact_json().
 *
 * The input is redacted as text and as JSON.  Never a crash; valid UTF-8
 * in is valid UTF-8 out; pd_redact_json() of a JSON document is a JSON
 * document; and a second redaction changes nothing more (pd-redact.h).
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
  if (strcmp (once, twice) != 0)
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
