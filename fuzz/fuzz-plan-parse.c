/* fuzz-plan-parse.c: the strict parser of rendered plan messages.
 *
 * Whatever the text, pd_plan_parse() either fails with a message or
 * returns a state; a returned state renders to text that parses to the
 * same state again (the parser inverts the render, and is total).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-plan.h"
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
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(PdPlanState) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *full = NULL;

  if (size > 256 * 1024)
    return -1;
  text = g_malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';

  (void) pd_plan_is_plan_message ("system", text);

  state = pd_plan_parse (text, 12, &error);
  if (state == NULL)
    {
      if (error == NULL || !g_utf8_validate (error->message, -1, NULL))
        abort ();
      return 0;
    }
  if (error != NULL)
    abort ();

  /* A collapsed header parses to a version without rows; nothing to render. */
  if (state->steps->len == 0)
    return 0;

  full = pd_plan_render_full (state);
  again = pd_plan_parse (full, 12, &error);
  if (again == NULL)
    {
      g_printerr ("a parsed plan renders to text that does not parse: %s\n%s\n", error->message, full);
      abort ();
    }
  if (!pd_plan_state_same_content (state, again) || again->version != state->version)
    {
      g_printerr ("a parsed plan renders to text that parses to another plan:\n%s\n", full);
      abort ();
    }
  return 0;
}
