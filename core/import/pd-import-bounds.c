/* pd-import-bounds.c: what a transcript's read holds, and what it says in
 * place of what it does not show.
 *
 * A line (or file, or row) is held to its values before a tree is built
 * of it (pd-import-util.c); this is the rest: the placeholder texts, the
 * budget of the trees a session's read keeps at once (PdImportBudget), and
 * a tool call's arguments nested deeper than json-glib is given, replaced
 * by a placeholder so the call stays (_pd_import_defuse_nesting()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "pd-import-private.h"
#include "pd-json.h"

char *
_pd_import_unshown_text (PdImportUnshown why,
                         gsize           length)
{
  unsigned long long n = length;

  switch (why)
    {
    case PD_IMPORT_UNSHOWN_TOO_MANY_VALUES:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "This line of the transcript holds too many values to show (%llu byte)",
                                           "This line of the transcript holds too many values to show (%llu bytes)",
                                           length), n);
    case PD_IMPORT_UNSHOWN_TOO_LONG:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "This line of the transcript is too long to show (%llu byte)",
                                           "This line of the transcript is too long to show (%llu bytes)",
                                           length), n);
    case PD_IMPORT_UNSHOWN_OVER_BUDGET:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "This line of the transcript is not shown: the lines before it hold as many values as a session may show (%llu byte)",
                                           "This line of the transcript is not shown: the lines before it hold as many values as a session may show (%llu bytes)",
                                           length), n);
    case PD_IMPORT_UNSHOWN_TOO_DEEP:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "…nested too deep to show (%llu byte)",
                                           "…nested too deep to show (%llu bytes)",
                                           length), n);
    }
  g_return_val_if_reached (NULL);
}

void
_pd_import_add_unshown (PdTranscriptPages *pages,
                        const char        *conversation,
                        PdImportUnshown    why,
                        gsize              length,
                        gint64             time)
{
  g_autofree char *text = NULL;

  if (pages == NULL)
    return;
  /* In its place, so that the messages around it keep their order. */
  text = _pd_import_unshown_text (why, length);
  _pd_transcript_pages_add_text (pages, conversation, "system", text, NULL, time);
}

static gsize session_units_max;

void
_pd_import_set_session_units (gsize max)
{
  session_units_max = max;
}

void
_pd_import_budget_init (PdImportBudget *budget)
{
  memset (budget, 0, sizeof *budget);
  budget->max = session_units_max > 0 ? session_units_max : PD_IMPORT_SESSION_UNITS_MAX;
}

gsize
_pd_import_tree_units (JsonNode *node)
{
  gsize units = 0;

  if (node == NULL)
    return 0;
  /* A tree is at most PD_JSON_FOREIGN_MAX_DEPTH deep (every parse of
   * foreign text refuses deeper), so the recursion is bounded. */
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint n = json_array_get_length (array);

      units = 1 + (n > 0 ? n - 1 : 0);
      for (guint i = 0; i < n; i++)
        units += _pd_import_tree_units (json_array_get_element (array, i));
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      JsonObjectIter iter;
      JsonNode *member;
      guint n = json_object_get_size (object);

      /* Two for the object, and a ':' and a ',' a member. */
      units = 2 + n + (n > 0 ? n - 1 : 0);
      json_object_iter_init (&iter, object);
      while (json_object_iter_next (&iter, NULL, &member))
        units += _pd_import_tree_units (member);
    }
  return units;
}

gboolean
_pd_import_budget_take (PdImportBudget *budget,
                        gsize           units)
{
  if (units > budget->max - budget->held)
    {
      budget->refused++;
      return FALSE;
    }
  budget->held += units;
  budget->peak = MAX (budget->peak, budget->held);
  return TRUE;
}

void
_pd_import_budget_give (PdImportBudget *budget,
                        gsize           units)
{
  budget->held -= MIN (units, budget->held);
}

