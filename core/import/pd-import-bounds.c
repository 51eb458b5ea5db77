/* pd-import-bounds.c: what a transcript's read holds, and what it says in
 * place of what it does not show.
 *
 * A line (or file, or row) is held to its values before a tree is built
 * of it (pd-import-util.c); this is the rest: the placeholder texts, the
 * budget of what a session's read keeps at once (PdImportBudget), and
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
                                           "This line of the transcript is not shown: the lines before it hold as much as a session may show (%llu byte)",
                                           "This line of the transcript is not shown: the lines before it hold as much as a session may show (%llu bytes)",
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

static gsize session_bytes_max;

void
_pd_import_set_session_bytes (gsize max)
{
  session_bytes_max = max;
}

void
_pd_import_budget_init (PdImportBudget *budget)
{
  memset (budget, 0, sizeof *budget);
  budget->max = session_bytes_max > 0 ? session_bytes_max : PD_IMPORT_SESSION_BYTES_MAX;
}

gsize
_pd_import_text_bytes (const char *text)
{
  return text != NULL ? PD_IMPORT_VALUE_BYTES + strlen (text) : 0;
}

gsize
_pd_import_tree_bytes (JsonNode *node)
{
  gsize bytes = PD_IMPORT_VALUE_BYTES;

  if (node == NULL)
    return 0;
  /* A tree is at most PD_JSON_FOREIGN_MAX_DEPTH deep (every parse of
   * foreign text refuses deeper), so the recursion is bounded. */
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint n = json_array_get_length (array);

      for (guint i = 0; i < n; i++)
        bytes += _pd_import_tree_bytes (json_array_get_element (array, i));
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, &name, &member))
        bytes += strlen (name) + _pd_import_tree_bytes (member);
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    bytes += strlen (json_node_get_string (node));
  return bytes;
}

/* For tests: of all budgets (readers run on several threads). */
G_LOCK_DEFINE_STATIC (stats);
static gsize stats_peak;
static guint stats_refused;

void
_pd_import_budget_reset_stats (void)
{
  G_LOCK (stats);
  stats_peak = 0;
  stats_refused = 0;
  G_UNLOCK (stats);
}

gsize
_pd_import_budget_get_peak (void)
{
  gsize peak;

  G_LOCK (stats);
  peak = stats_peak;
  G_UNLOCK (stats);
  return peak;
}

guint
_pd_import_budget_get_refused (void)
{
  guint refused;

  G_LOCK (stats);
  refused = stats_refused;
  G_UNLOCK (stats);
  return refused;
}

gboolean
_pd_import_budget_take (PdImportBudget *budget,
                        gsize           bytes)
{
  gboolean room = bytes <= budget->max - budget->held;

  if (room)
    {
      budget->held += bytes;
      budget->peak = MAX (budget->peak, budget->held);
    }
  else
    budget->refused++;
  G_LOCK (stats);
  stats_peak = MAX (stats_peak, budget->held);
  stats_refused += room ? 0 : 1;
  G_UNLOCK (stats);
  return room;
}

void
_pd_import_budget_give (PdImportBudget *budget,
                        gsize           bytes)
{
  budget->held -= MIN (bytes, budget->held);
}


/* ---------------------------------------------------------------------- */
/* Nesting                                                                */

/* The members that hold a tool call's arguments, in every reader's
 * records: Claude Code's and OpenCode's "input", Gemini CLI's and Qwen
 * Code's "args", and "arguments". */
static gboolean
is_arguments_key (const char *key,
                  gsize       length)
{
  return (length == 5 && memcmp (key, "input", 5) == 0)
         || (length == 4 && memcmp (key, "args", 4) == 0)
         || (length == 9 && memcmp (key, "arguments", 9) == 0);
}

/* Past the string that starts at @p (its closing quote, or @end). */
static const char *
past_string (const char *p,
             const char *end)
{
  for (p++; p < end; p++)
    {
      if (*p == '\\')
        p++;
      else if (*p == '"')
        return p + 1;
    }
  return end;
}

static const char *
past_blanks (const char *p,
             const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* Where the container that opens at @p closes (just past it), or NULL. */
static const char *
past_container (const char *p,
                const char *end)
{
  gsize depth = 0;

  while (p < end)
    {
      if (*p == '"')
        {
          p = past_string (p, end);
          continue;
        }
      if (*p == '[' || *p == '{')
        depth++;
      else if (*p == ']' || *p == '}')
        {
          if (--depth == 0)
            return p + 1;
        }
      p++;
    }
  return NULL;
}

typedef struct
{
  const char *start;
  gboolean    arguments;   /* the value of an arguments member */
} Open;

char *
_pd_import_defuse_nesting (const char *text,
                           gsize       length,
                           gsize      *new_length)
{
  const char *end = text + length;
  const char *p = text, *copied = text;
  g_autoptr(GString) out = NULL;
  Open stack[PD_JSON_FOREIGN_MAX_DEPTH];
  guint depth = 0;
  gboolean key_is_arguments = FALSE;

  while (p < end)
    {
      if (*p == '"')
        {
          const char *after = past_string (p, end);
          const char *next = past_blanks (after, end);

          /* A member's name: whether its value is a call's arguments. */
          key_is_arguments = next < end && *next == ':' && after - p >= 2
                             && is_arguments_key (p + 1, (gsize) (after - p - 2));
          p = after;
          continue;
        }
      if (*p == '[' || *p == '{')
        {
          if (depth == PD_JSON_FOREIGN_MAX_DEPTH)
            {
              /* Too deep: the outermost arguments around it go, whole. */
              guint i;
              const char *close;
              g_autofree char *placeholder = NULL;

              for (i = 0; i < depth && !stack[i].arguments; i++)
                ;
              if (i == depth || !(close = past_container (stack[i].start, end)))
                return NULL;
              if (out == NULL)
                out = g_string_sized_new (length / 2);
              g_string_append_len (out, copied, stack[i].start - copied);
              placeholder = _pd_import_unshown_text (PD_IMPORT_UNSHOWN_TOO_DEEP, (gsize) (close - stack[i].start));
              pd_json_append_string (out, placeholder);
              copied = p = close;
              depth = i;
              key_is_arguments = FALSE;
              continue;
            }
          stack[depth].start = p;
          stack[depth].arguments = key_is_arguments;
          depth++;
        }
      else if ((*p == ']' || *p == '}') && depth > 0)
        depth--;
      if (*p != ':' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
        key_is_arguments = FALSE;
      p++;
    }
  if (out == NULL)
    return NULL;
  g_string_append_len (out, copied, end - copied);
  if (new_length != NULL)
    *new_length = out->len;
  return g_string_free (g_steal_pointer (&out), FALSE);
}

JsonNode *
_pd_import_parse_defused (const char *text,
                          gssize      length)
{
  gsize size, defused_length = 0;
  g_autofree char *defused = NULL;

  if (text == NULL)
    return NULL;
  size = length < 0 ? strlen (text) : (gsize) length;
  if (!pd_json_nesting_exceeds (text, (gssize) size, PD_JSON_FOREIGN_MAX_DEPTH))
    return pd_json_parse_full (text, (gssize) size, PD_JSON_PARSE_FOREIGN, NULL);
  if (!(defused = _pd_import_defuse_nesting (text, size, &defused_length)))
    return NULL;
  return pd_json_parse_full (defused, (gssize) defused_length, PD_JSON_PARSE_FOREIGN, NULL);
}
