/* pd-claude-code-meta.c: the session's facts from a Claude Code
 * transcript (its folder, id, source and title): never plan state.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-claude-code-reader-private.h"
#include "pd-import-private.h"

/* Session facts from the main transcript: never plan state. */
void
_pd_claude_note_meta (PdClaudeCodeReader *self,
                      JsonObject         *line)
{
  const char *type = pd_json_get_string (line, "type");
  const char *value;

  if (!self->have_meta && (value = pd_json_get_string (line, "cwd")))
    {
      pd_imported_session_set_cwd (self->session, value);
      if ((value = pd_json_get_string (line, "sessionId")))
        pd_imported_session_set_id (self->session, value);
      self->have_meta = TRUE;
    }
  if (g_strcmp0 (pd_json_get_string (line, "entrypoint"), "claude-desktop") == 0)
    pd_imported_session_set_source (self->session, PD_IMPORT_SOURCE_CLAUDE_DESKTOP);

  if (type == NULL)
    return;
  if (strcmp (type, "summary") == 0 && (value = pd_json_get_string (line, "summary")))
    {
      g_autofree char *clean = _pd_import_clean_text (value);
      pd_imported_session_set_title (self->session, clean);
      self->have_title = TRUE;
    }
  else if (strcmp (type, "custom-title") == 0
           && ((value = pd_json_get_string (line, "customTitle")) || (value = pd_json_get_string (line, "title"))))
    {
      g_autofree char *clean = _pd_import_clean_text (value);
      pd_imported_session_set_title (self->session, clean);
      self->have_title = TRUE;
    }
  else if (strcmp (type, "user") == 0 && !self->have_title && pd_imported_session_get_title (self->session) == NULL)
    {
      gboolean meta = FALSE;
      const char *prompt = pd_json_get_string (pd_json_get_object (line, "message"), "content");

      meta = pd_json_get_boolean (line, "isMeta", FALSE);
      if (!meta && prompt != NULL && *prompt != '<' && *prompt != '\0')
        {
          g_autofree char *title = _pd_import_title_from_text (prompt);

          pd_imported_session_set_title (self->session, title);
        }
    }
}

/* _pd_claude_note_meta() on a line that is read for the session's facts
 * alone (its first line's folder, a summary, the first prompt): checked as the picked
 * parse checks it (the same lines refused) and read in place, nothing
 * built.  FALSE when the check refuses it. */
enum { META_TYPE, META_CWD, META_SESSION_ID, META_ENTRYPOINT, META_SUMMARY, META_CUSTOM_TITLE, META_TITLE,
       META_IS_META, META_MESSAGE, META_CONTENT, N_META_SLOTS };

static const PdJsonSpanPick meta_message_spans[] = { { "content", META_CONTENT }, { NULL } };
static const PdJsonSpanPick meta_spans[] = {
  { "type", META_TYPE }, { "cwd", META_CWD }, { "sessionId", META_SESSION_ID }, { "entrypoint", META_ENTRYPOINT },
  { "summary", META_SUMMARY }, { "customTitle", META_CUSTOM_TITLE }, { "title", META_TITLE },
  { "isMeta", META_IS_META }, { "message", META_MESSAGE, meta_message_spans }, { NULL },
};

static void
set_title_from_span (PdClaudeCodeReader *self,
                     PdJsonSpan          value)
{
  g_autofree char *text = pd_json_span_dup_string (value);
  g_autofree char *clean = _pd_import_clean_text (text);

  pd_imported_session_set_title (self->session, clean);
  self->have_title = TRUE;
}

gboolean
_pd_claude_note_meta_in_place (PdClaudeCodeReader *self,
                               const char         *line,
                               gsize               length)
{
  PdJsonSpan v[N_META_SLOTS];
  PdJsonSpan type;

  if (!pd_json_check_spans (line, length, meta_spans, v, NULL, NULL))
    return FALSE;
  type = v[META_TYPE];
  if (!self->have_meta && pd_json_span_is_string (v[META_CWD]))
    {
      g_autofree char *cwd = pd_json_span_dup_string (v[META_CWD]);

      pd_imported_session_set_cwd (self->session, cwd);
      if (pd_json_span_is_string (v[META_SESSION_ID]))
        {
          g_autofree char *id = pd_json_span_dup_string (v[META_SESSION_ID]);

          pd_imported_session_set_id (self->session, id);
        }
      self->have_meta = TRUE;
    }
  if (pd_json_span_string_equal (v[META_ENTRYPOINT], "claude-desktop"))
    pd_imported_session_set_source (self->session, PD_IMPORT_SOURCE_CLAUDE_DESKTOP);

  if (!pd_json_span_is_string (type))
    return TRUE;
  if (pd_json_span_string_equal (type, "summary") && pd_json_span_is_string (v[META_SUMMARY]))
    set_title_from_span (self, v[META_SUMMARY]);
  else if (pd_json_span_string_equal (type, "custom-title")
           && (pd_json_span_is_string (v[META_CUSTOM_TITLE]) || pd_json_span_is_string (v[META_TITLE])))
    set_title_from_span (self, pd_json_span_is_string (v[META_CUSTOM_TITLE]) ? v[META_CUSTOM_TITLE] : v[META_TITLE]);
  else if (pd_json_span_string_equal (type, "user") && !self->have_title
           && pd_imported_session_get_title (self->session) == NULL)
    {
      g_autofree char *prompt = pd_json_span_is_object (v[META_MESSAGE])
                                ? pd_json_span_dup_string (v[META_CONTENT]) : NULL;
      gboolean meta = pd_json_span_is_boolean (v[META_IS_META]) && v[META_IS_META].text[0] == 't';

      if (!meta && prompt != NULL && *prompt != '<' && *prompt != '\0')
        {
          g_autofree char *title = _pd_import_title_from_text (prompt);

          pd_imported_session_set_title (self->session, title);
        }
    }
  return TRUE;
}
