/* fuzz-plan-args.c: the plan tool's arguments.
 *
 * Each line of the input is one call of the `plan` tool on a fresh store
 * (so sequences of verbs are explored).  After the calls, the store's full
 * render must parse back to exactly its state (or, collapsed when all is
 * done, to its version): a plan that the engine accepted is a plan that a
 * resume restores.
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

static void
call_one (const char *piece,
          gsize       length,
          gpointer    user_data)
{
  PdPlanStore *store = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (store, piece, &error);

  /* Exactly one of a result and an error, and a message a person reads. */
  if ((result == NULL) == (error == NULL))
    abort ();
  if (error != NULL && (error->message == NULL || !g_utf8_validate (error->message, -1, NULL)))
    abort ();
  if (result != NULL && !g_utf8_validate (result, -1, NULL))
    abort ();
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 8000);
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(PdPlanState) parsed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *full = NULL;

  if (size > 64 * 1024)
    return -1;

  pd_fuzz_split_lines (data, size, 32, call_one, store);

  if (!pd_plan_store_has_plan (store))
    return 0;

  state = pd_plan_store_snapshot (store);
  full = pd_plan_render_full (state);
  parsed = pd_plan_parse (full, 12, &error);
  if (parsed == NULL)
    {
      g_printerr ("the render of an accepted plan does not parse: %s\n%s\n", error->message, full);
      abort ();
    }
  /* An all-done plan without checks renders collapsed, to one line, and
   * parses back to its version without rows: that is the design. */
  if (strchr (full, '\n') == NULL)
    {
      if (parsed->steps->len != 0 || parsed->version != state->version)
        abort ();
      return 0;
    }
  if (!pd_plan_state_same_content (state, parsed) || parsed->version != state->version)
    {
      g_printerr ("the render of an accepted plan parses to another plan:\n%s\n", full);
      abort ();
    }
  return 0;
}
