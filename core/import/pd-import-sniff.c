/* pd-import-sniff.c: which tool wrote a transcript, from its first lines.
 *
 * A JSON lines file is recognised by what its first few lines hold (each
 * checked with nothing built); a document by its name and first byte; a
 * database by its header.  pd-import-util.c holds the other helpers the
 * readers share; pd-import-private.h declares both.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "pd-import-private.h"
#include "pd-json.h"
#include "pd-jsonl-reader.h"

#define SNIFF_MAX_LINE (1024 * 1024)
#define SNIFF_MAX_LINES 8
#define SNIFF_FIRST_READ (4 * 1024)
/* What the look reads at most: its lines, and the over-long lines it reads
 * past (a first line holding a pasted image is a few MiB).  A sparse file
 * of 4 GiB, one line of NULs, was read whole before it was called no
 * transcript: 35 s (tried as an attacker would, att15).  A NUL stops the
 * look at once (pd_jsonl_reader_set_stop_at_nul()); this bounds a long
 * line of anything else. */
#define SNIFF_MAX_BYTES (32 * 1024 * 1024)
static const char * const claude_types[] = {
  "user", "assistant", "system", "summary", "attachment", "file-history-snapshot",
  "queue-operation", "progress", "permission-mode", "last-prompt", "custom-title", NULL,
};
static const char * const codex_types[] = {
  "session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state", NULL,
};

/* What the sniffing reads of a line: the payload's presence only. */
static const PdJsonPick nothing_pick[] = { { NULL, NULL } };
/* Qwen Code's content: whether message.parts is there, and a system
 * record's payload. */
static const PdJsonPick message_pick[] = { { "parts", nothing_pick }, { NULL, NULL } };
static const PdJsonPick sniff_pick[] = {
  { "type", NULL }, { "sessionId", NULL }, { "payload", nothing_pick },
  { "message", message_pick }, { "systemPayload", nothing_pick }, { "projectHash", nothing_pick }, { NULL, NULL },
};

const char *
_pd_import_format_name (PdImportFormat format)
{
  switch (format)
    {
    case PD_IMPORT_FORMAT_CLAUDE: return "claude";
    case PD_IMPORT_FORMAT_CODEX:  return "codex";
    case PD_IMPORT_FORMAT_QWEN:   return "qwen";
    case PD_IMPORT_FORMAT_GEMINI: return "gemini";
    case PD_IMPORT_FORMAT_GEMINI_JSON: return "gemini-json";
    case PD_IMPORT_FORMAT_CLINE:  return "cline";
    case PD_IMPORT_FORMAT_UNKNOWN:
    default:                      return NULL;
    }
}

/* Qwen Code's records carry Claude's envelope (uuid, sessionId, cwd, type
 * user | assistant | system) but Gemini's content: message.parts, not
 * message.content; and records of their own (tool_result, systemPayload). */
static gboolean
is_qwen_record (JsonObject *object,
                const char *type)
{
  if (strcmp (type, "tool_result") == 0)
    return json_object_has_member (object, "sessionId");
  if (strcmp (type, "user") != 0 && strcmp (type, "assistant") != 0 && strcmp (type, "system") != 0)
    return FALSE;
  return pd_json_get_array (pd_json_get_object (object, "message"), "parts") != NULL
         || pd_json_get_object (object, "systemPayload") != NULL;
}

gboolean
_pd_import_is_document_name (const char *dir,
                             const char *name)
{
  g_autofree char *folder = g_path_get_basename (dir);

  if (strcmp (name, "ui_messages.json") == 0)
    {
      g_autofree char *up = g_path_get_dirname (dir);
      g_autofree char *tasks = g_path_get_basename (up);

      return strcmp (tasks, "tasks") == 0;
    }
  return g_str_has_prefix (name, "session-") && g_str_has_suffix (name, ".json") && strcmp (folder, "chats") == 0;
}

/* A document's first byte that is not white space, or 0: read through
 * @reader's descriptor (opening the file again for it was a sixth of the
 * system calls of a task's import). */
static char
document_start (PdJsonlReader *reader)
{
  char buf[256];
  gssize got = pd_jsonl_reader_read_head (reader, buf, sizeof buf);

  for (gssize i = 0; i < got; i++)
    if (!g_ascii_isspace (buf[i]))
      return buf[i];
  return 0;
}

/* Gemini CLI's session header: the first line of its JSON lines. */
static gboolean
is_gemini_header (JsonObject *object)
{
  return pd_json_get_string (object, "sessionId") != NULL && json_object_has_member (object, "projectHash")
         && !json_object_has_member (object, "type");
}

/* The same look with nothing built: each line checked as the picked parse
 * checks it (the same lines refused) and its members read in place.  The
 * first lines of a transcript are kilobytes each, and their trees were a
 * tenth of a Claude Code import. */
enum { SNIFF_TYPE, SNIFF_SESSION_ID, SNIFF_PAYLOAD, SNIFF_MESSAGE, SNIFF_PARTS, SNIFF_SYSTEM_PAYLOAD,
       SNIFF_PROJECT_HASH, N_SNIFF_SLOTS };

static const PdJsonSpanPick sniff_message_spans[] = { { "parts", SNIFF_PARTS }, { NULL } };
static const PdJsonSpanPick sniff_spans[] = {
  { "type", SNIFF_TYPE }, { "sessionId", SNIFF_SESSION_ID }, { "payload", SNIFF_PAYLOAD },
  { "message", SNIFF_MESSAGE, sniff_message_spans }, { "systemPayload", SNIFF_SYSTEM_PAYLOAD },
  { "projectHash", SNIFF_PROJECT_HASH }, { NULL },
};

static gboolean
span_in (PdJsonSpan          string,
         const char * const *words)
{
  for (; *words != NULL; words++)
    if (pd_json_span_string_equal (string, *words))
      return TRUE;
  return FALSE;
}

/* No JSON text holds a NUL byte (a string writes it \u0000): the file is
 * binary, or a sparse file's hole, and no line after it is looked for. */
static gboolean
holds_nul (const char *line,
           gsize       length)
{
  return memchr (line, '\0', length) != NULL;
}

static PdImportFormat
sniff_lines_in_place (PdJsonlReader  *reader,
                      char          **session_id)
{
  PdJsonSpan v[N_SNIFF_SLOTS];
  const char *line;
  gsize length;
  PdImportFormat format = PD_IMPORT_FORMAT_UNKNOWN;

  for (guint i = 0; i < SNIFF_MAX_LINES && pd_jsonl_reader_next (reader, &line, &length, NULL); i++)
    {
      PdJsonSpan type;

      if (holds_nul (line, length))
        return format;
      if (!pd_json_check_spans (line, length, sniff_spans, v, NULL, NULL))
        continue;
      type = v[SNIFF_TYPE];
      /* is_gemini_header(): the session's id, a project hash, no type. */
      if (pd_json_span_is_string (v[SNIFF_SESSION_ID]) && v[SNIFF_PROJECT_HASH].length > 0 && type.length == 0)
        return PD_IMPORT_FORMAT_GEMINI;
      if (!pd_json_span_is_string (type))
        continue;
      if (span_in (type, codex_types) && v[SNIFF_PAYLOAD].length > 0)
        return PD_IMPORT_FORMAT_CODEX;
      /* is_qwen_record(). */
      if (pd_json_span_string_equal (type, "tool_result")
          ? v[SNIFF_SESSION_ID].length > 0
          : ((pd_json_span_string_equal (type, "user") || pd_json_span_string_equal (type, "assistant")
              || pd_json_span_string_equal (type, "system"))
             && ((pd_json_span_is_object (v[SNIFF_MESSAGE]) && pd_json_span_is_array (v[SNIFF_PARTS]))
                 || pd_json_span_is_object (v[SNIFF_SYSTEM_PAYLOAD]))))
        return PD_IMPORT_FORMAT_QWEN;
      if (span_in (type, claude_types))
        {
          format = PD_IMPORT_FORMAT_CLAUDE;
          if (session_id && pd_json_span_is_string (v[SNIFF_SESSION_ID]))
            {
              *session_id = pd_json_span_dup_string (v[SNIFF_SESSION_ID]);
              return format;
            }
        }
    }
  return format;
}

/* The format from the first lines @reader gives. */
static PdImportFormat
sniff_lines (PdJsonlReader  *reader,
             char          **session_id)
{
  g_autoptr(JsonNode) root = NULL;
  const char *line;
  gsize length;
  PdImportFormat format = PD_IMPORT_FORMAT_UNKNOWN;

  if (_pd_import_get_pick_lines ())
    return sniff_lines_in_place (reader, session_id);
  for (guint i = 0; i < SNIFF_MAX_LINES && pd_jsonl_reader_next (reader, &line, &length, NULL); i++)
    {
      JsonObject *object;
      const char *type;

      if (holds_nul (line, length))
        return format;
      object = _pd_import_parse_picked (&root, line, length, sniff_pick);
      type = pd_json_get_string (object, "type");

      if (object != NULL && is_gemini_header (object))
        return PD_IMPORT_FORMAT_GEMINI;
      if (type == NULL)
        continue;
      if (g_strv_contains (codex_types, type) && json_object_has_member (object, "payload"))
        return PD_IMPORT_FORMAT_CODEX;
      if (is_qwen_record (object, type))
        return PD_IMPORT_FORMAT_QWEN;
      if (g_strv_contains (claude_types, type))
        {
          format = PD_IMPORT_FORMAT_CLAUDE;
          if (session_id && pd_json_get_string (object, "sessionId"))
            {
              *session_id = g_strdup (pd_json_get_string (object, "sessionId"));
              return format;
            }
        }
    }
  return format;
}

PdImportFormat
_pd_import_sniff_jsonl (const char  *path,
                        char       **session_id,
                        GError     **error)
{
  return _pd_import_sniff_jsonl_open (path, session_id, NULL, error);
}

PdImportFormat
_pd_import_sniff_jsonl_open (const char      *path,
                             char           **session_id,
                             PdJsonlReader  **opened,
                             GError         **error)
{
  g_autoptr(PdJsonlReader) reader = pd_jsonl_reader_new (path, 0, SNIFF_MAX_LINE, FALSE, error);
  PdImportFormat format;

  if (opened != NULL)
    *opened = NULL;

  /* Whole documents: known by their place, opened by their first byte. */
  if (reader != NULL && g_str_has_suffix (path, ".json"))
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *name = g_path_get_basename (path);

      if (!_pd_import_is_document_name (dir, name))
        return PD_IMPORT_FORMAT_UNKNOWN;
      if (strcmp (name, "ui_messages.json") == 0)
        return document_start (reader) == '[' ? PD_IMPORT_FORMAT_CLINE : PD_IMPORT_FORMAT_UNKNOWN;
      if (document_start (reader) == '{')
        return PD_IMPORT_FORMAT_GEMINI_JSON;
      return PD_IMPORT_FORMAT_UNKNOWN;
    }

  if (reader == NULL)
    return PD_IMPORT_FORMAT_UNKNOWN;
  /* Read by its reader afterwards: by this reader when it is kept
   * (rewound: what was read is not read again), else by another open, and
   * then only its head here (a Claude Code line with the session's id is a
   * few KiB). */
  if (opened == NULL)
    pd_jsonl_reader_set_first_read (reader, SNIFF_FIRST_READ);
  pd_jsonl_reader_set_limit (reader, SNIFF_MAX_BYTES);
  pd_jsonl_reader_set_stop_at_nul (reader, TRUE);
  format = sniff_lines (reader, session_id);
  pd_jsonl_reader_set_limit (reader, 0);
  pd_jsonl_reader_set_stop_at_nul (reader, FALSE);
  if (opened != NULL && format != PD_IMPORT_FORMAT_UNKNOWN && pd_jsonl_reader_rewind (reader, NULL))
    *opened = g_steal_pointer (&reader);
  return format;
}

gboolean
_pd_import_is_sqlite (const char *path)
{
  char header[16];
  gsize n = 0;
  int fd = _pd_jsonl_open (path, NULL);

  if (fd < 0)
    return FALSE;
  while (n < sizeof header)
    {
      gssize got = read (fd, header + n, sizeof header - n);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      n += (gsize) got;
    }
  close (fd);
  return n == sizeof header && memcmp (header, "SQLite format 3", 16) == 0;
}
