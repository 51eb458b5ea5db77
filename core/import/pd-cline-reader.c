/* pd-cline-reader.c: tasks of Cline, Roo Code and Kilo Code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include <errno.h>
#include <unistd.h>

#include "pd-cline-reader.h"
#include "pd-import-private.h"
#include "pd-json.h"
#include "pd-jsonl-reader.h"

#define DOCUMENT_MAX ((gsize) 256 * 1024 * 1024)
#define HISTORY_MAX ((gsize) 32 * 1024 * 1024)
/* Of a task's api_conversation_history.json, what is looked at for the
 * first request's environment details (its folder). */
#define CONVERSATION_HEAD ((gsize) 1024 * 1024)
#define FOLDER_MAX 4096

struct _PdClineReader
{
  GObject            parent_instance;

  char              *path;
  PdImportedSession *session;
  gboolean           read_once;   /* the document was read whole at least once */
  PdTranscriptPages *pages;
};

static void transcript_reader_iface_init (PdTranscriptReaderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdClineReader, pd_cline_reader, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TRANSCRIPT_READER, transcript_reader_iface_init))

static void
pd_cline_reader_finalize (GObject *object)
{
  PdClineReader *self = PD_CLINE_READER (object);

  g_clear_object (&self->session);
  g_clear_object (&self->pages);
  g_free (self->path);

  G_OBJECT_CLASS (pd_cline_reader_parent_class)->finalize (object);
}

static void
pd_cline_reader_class_init (PdClineReaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_cline_reader_finalize;
}

static void
pd_cline_reader_init (PdClineReader *self)
{
}

/* The extension, from the folder it keeps its tasks in. */
static gboolean
source_of_path (const char     *path,
                PdImportSource *source)
{
  if (strstr (path, "/saoudrizwan.claude-dev/"))
    *source = PD_IMPORT_SOURCE_CLINE;
  else if (strstr (path, "/rooveterinaryinc.roo-cline/"))
    *source = PD_IMPORT_SOURCE_ROO;
  else if (strstr (path, "/kilocode.kilo-code/"))
    *source = PD_IMPORT_SOURCE_KILO;
  else
    return FALSE;
  return TRUE;
}

PdClineReader *
pd_cline_reader_new (const char *path)
{
  PdClineReader *self;
  PdImportSource source = PD_IMPORT_SOURCE_CLINE;
  g_autofree char *dir = NULL;
  g_autofree char *id = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PD_TYPE_CLINE_READER, NULL);
  self->path = g_strdup (path);
  source_of_path (path, &source);
  self->session = pd_imported_session_new (source, path);
  /* The task's id is its folder's name (an epoch in ms). */
  dir = g_path_get_dirname (path);
  id = g_path_get_basename (dir);
  if (strcmp (id, ".") != 0 && strcmp (id, "/") != 0)
    pd_imported_session_set_id (self->session, id);
  return self;
}

static PdImportedSession *
cline_get_session (PdTranscriptReader *reader)
{
  return PD_CLINE_READER (reader)->session;
}

static const char *
cline_get_format (PdTranscriptReader *reader)
{
  return "cline";
}

static void
cline_set_pages (PdTranscriptReader *reader,
                 PdTranscriptPages  *pages)
{
  g_set_object (&PD_CLINE_READER (reader)->pages, pages);
}

static gboolean cline_update (PdTranscriptReader  *reader,
                              GCancellable        *cancellable,
                              GError             **error);

/* No dup_resume_argv: the extensions continue a task from their history in
 * the editor, with no command line to give. */
static void
transcript_reader_iface_init (PdTranscriptReaderInterface *iface)
{
  iface->get_format = cline_get_format;
  iface->update = cline_update;
  iface->get_session = cline_get_session;
  iface->set_pages = cline_set_pages;
}

/* ---------------------------------------------------------------------- */
/* Lists                                                                  */

GPtrArray *
pd_cline_parse_checklist (const char *markdown)
{
  return pd_cline_parse_checklist_cut (markdown, NULL);
}

GPtrArray *
pd_cline_parse_checklist_cut (const char *markdown,
                              guint      *n_hidden)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
  guint hidden = 0;

  if (n_hidden != NULL)
    *n_hidden = 0;
  if (markdown == NULL)
    return NULL;
  /* Line by line in place: a progress text of many megabytes is never
   * copied whole; past the items kept, items are only counted. */
  for (const char *line = markdown; line != NULL;)
    {
      const char *newline = strchr (line, '\n');
      const char *line_end = newline ? newline : line + strlen (line);
      const char *p = line;
      PdChecklistStatus status;
      g_autofree char *text = NULL;
      g_autofree char *clean = NULL;

      line = newline ? newline + 1 : NULL;
      while (p < line_end && (*p == ' ' || *p == '\t'))
        p++;
      if (line_end - p < 2 || (*p != '-' && *p != '*') || p[1] != ' ')
        continue;
      p += 2;
      while (p < line_end && *p == ' ')
        p++;
      if (line_end - p < 3 || p[0] != '[' || p[2] != ']')
        continue;
      switch (p[1])
        {
        case ' ':           status = PD_CHECKLIST_STATUS_PENDING; break;
        case 'x': case 'X': status = PD_CHECKLIST_STATUS_COMPLETED; break;
        case '-': case '~': status = PD_CHECKLIST_STATUS_IN_PROGRESS; break;
        default:            continue;
        }
      p += 3;
      while (p < line_end && (*p == ' ' || *p == '\t'))
        p++;
      if (p == line_end)
        continue;
      if (items->len >= PD_IMPORT_MAX_ITEMS)
        {
          hidden++;
          continue;
        }
      /* An item's text is cut when cleaned: only that much is copied. */
      text = g_strndup (p, MIN ((gsize) (line_end - p), (gsize) PD_IMPORT_MAX_TEXT * 4 + 4));
      if (!g_utf8_validate (text, -1, NULL))
        {
          const char *valid_end;

          g_utf8_validate (text, -1, &valid_end);
          text[valid_end - text] = '\0';
        }
      clean = _pd_import_clean_text (text);
      g_ptr_array_add (items, pd_checklist_item_new (g_strchomp (clean), status, NULL));
    }
  if (n_hidden != NULL)
    *n_hidden = hidden;
  return items->len > 0 ? g_steal_pointer (&items) : NULL;
}

static const char * const content_members[] = { "content", "text", NULL };

/* Roo's and Kilo's updateTodoList, from the tool message's JSON text.  The
 * ids are left out: they change with the status.  The text is read in
 * place: nothing of it is built but the items kept (a list of a million
 * items built whole took 16 times the text). */
static GPtrArray *
roo_items (const char *text,
           gboolean   *is_todo_tool,
           guint      *n_hidden)
{
  static const char * const names[] = { "tool", "todos", NULL };
  PdJsonSpan values[G_N_ELEMENTS (names)] = { { NULL, 0 } };
  gsize length;

  *is_todo_tool = FALSE;
  *n_hidden = 0;
  if (text == NULL || strstr (text, "updateTodoList") == NULL)
    return NULL;
  length = strlen (text);
  if (!pd_json_check_foreign (text, (gssize) length, NULL))
    return NULL;
  pd_json_span_get_members ((PdJsonSpan) { text, length }, names, values);
  if (!pd_json_span_string_equal (values[0], "updateTodoList"))
    return NULL;
  *is_todo_tool = TRUE;
  if (pd_json_span_is_array (values[1]))
    return _pd_import_items_from_span_cut (values[1], content_members, NULL, n_hidden);
  /* The tool's own argument: the markdown checklist. */
  if (pd_json_span_is_string (values[1]))
    {
      g_autofree char *markdown = pd_json_span_dup_string (values[1]);

      return pd_cline_parse_checklist_cut (markdown, n_hidden);
    }
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                */

/* Cline's own index: <storage>/state/taskHistory.json, [{id, task, ts,
 * cwdOnTaskInitialization}], for the task's folder. */
static const PdJsonPick history_pick[] = {
  { "id", NULL }, { "cwdOnTaskInitialization", NULL }, { "cwd", NULL }, { NULL, NULL },
};

static void
read_task_history (PdClineReader *self)
{
  const char *id = pd_imported_session_get_id (self->session);
  g_autofree char *task_dir = g_path_get_dirname (self->path);
  g_autofree char *tasks = g_path_get_dirname (task_dir);
  g_autofree char *storage = g_path_get_dirname (tasks);
  g_autofree char *tasks_name = g_path_get_basename (tasks);
  g_autofree char *file = g_build_filename (storage, "state", "taskHistory.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(PdJsonElements) elements = NULL;
  JsonNode *element;
  gsize length;

  if (id == NULL || strcmp (tasks_name, "tasks") != 0 || !g_file_test (file, G_FILE_TEST_EXISTS)
      || !_pd_import_read_file (file, HISTORY_MAX, &contents, &length, NULL)
      || !(elements = pd_json_elements_new (contents, length, NULL, NULL, NULL)))
    return;
  /* A task at a time: every task's text is left unbuilt. */
  while ((element = pd_json_elements_next (elements, history_pick)))
    {
      g_autoptr(JsonNode) owned = element;
      JsonObject *item;
      const char *cwd;

      if (!JSON_NODE_HOLDS_OBJECT (element)
          || g_strcmp0 (pd_json_get_string (item = json_node_get_object (element), "id"), id) != 0)
        continue;
      cwd = pd_json_get_string (item, "cwdOnTaskInitialization");
      if (cwd == NULL)
        cwd = pd_json_get_string (item, "cwd");
      if (cwd != NULL && g_path_is_absolute (cwd) && strchr (cwd, '\n') == NULL)
        pd_imported_session_set_cwd (self->session, cwd);
      return;
    }
}

/* The first @max bytes of @path, opened as transcripts are; NULL when it
 * cannot be read. */
static char *
read_head (const char *path,
           gsize       max,
           gsize      *length)
{
  g_autofree char *data = g_malloc (max + 1);
  gsize size = 0;
  int fd = _pd_jsonl_open (path, NULL);

  if (fd < 0)
    return NULL;
  while (size < max)
    {
      gssize got = read (fd, data + size, max - size);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      size += (gsize) got;
    }
  close (fd);
  data[size] = '\0';
  *length = size;
  return g_steal_pointer (&data);
}

/* The folder the extensions name in the environment details of a task's
 * first request, which every request carries as a text block of its own:
 * "<environment_details>\n…# Current Workspace Directory (/path) Files"
 * (Roo Code, Kilo Code), "# Current Working Directory (/path) Files"
 * (Cline).  Roo and Kilo keep their task index in the editor's own state
 * database, so this is where their tasks' folder is written down (tried as
 * a new user would: sessions show said "folder unknown" for every Roo and
 * Kilo task).  The block is found where a JSON string starts with it (a
 * quote not escaped before it), so a task's own text that quotes the
 * words cannot name another folder. */
static char *
environment_folder (const char *text,
                    gsize       length)
{
  static const char block[] = "\"<environment_details>";
  static const char * const markers[] = {
    "\\n# Current Workspace Directory (", "\\n# Current Working Directory (", NULL,
  };
  const char *end = text + length;
  const char *p = text;

  while ((p = memmem (p, (gsize) (end - p), block, sizeof block - 1)) != NULL)
    {
      const char *string_end;
      const char *found = NULL;
      const char *open = NULL;

      if (p > text && p[-1] == '\\')
        {
          p += sizeof block - 1;
          continue;
        }
      /* The block's own string: up to its closing quote. */
      for (string_end = p + 1; string_end < end && *string_end != '"'; string_end++)
        if (*string_end == '\\')
          string_end++;
      for (guint i = 0; markers[i] != NULL; i++)
        {
          const char *m = memmem (p, (gsize) (MIN (string_end, end) - p), markers[i], strlen (markers[i]));

          if (m != NULL && (found == NULL || m < found))
            found = m, open = m + strlen (markers[i]);
        }
      if (found != NULL)
        {
          static const char close[] = ") Files";
          const char *line_end = memmem (open, (gsize) (MIN (string_end, end) - open), "\\n", 2);
          const char *stop = line_end ? line_end : MIN (string_end, end);
          const char *last = NULL;
          g_autofree char *quoted = NULL;
          g_autoptr(JsonNode) node = NULL;

          /* The last ") Files" of the line: a folder may hold ") Files". */
          for (const char *q = open; (q = memmem (q, (gsize) (stop - q), close, sizeof close - 1)) != NULL; q++)
            last = q;
          if (last == NULL || last == open || last - open > FOLDER_MAX)
            return NULL;
          /* Unescaped as the JSON string it is part of. */
          quoted = g_strdup_printf ("[\"%.*s\"]", (int) (last - open), open);
          node = _pd_import_parse_json (quoted, -1);
          if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
            return NULL;
          return g_strdup (pd_json_node_get_string (json_array_get_element (json_node_get_array (node), 0)));
        }
      return NULL;
    }
  return NULL;
}

/* The task's folder from its first request (see environment_folder()). */
static void
read_environment (PdClineReader *self)
{
  g_autofree char *task_dir = g_path_get_dirname (self->path);
  g_autofree char *file = g_build_filename (task_dir, "api_conversation_history.json", NULL);
  g_autofree char *head = NULL;
  g_autofree char *folder = NULL;
  gsize length = 0;

  if (!g_file_test (file, G_FILE_TEST_EXISTS) || !(head = read_head (file, CONVERSATION_HEAD, &length)))
    return;
  folder = environment_folder (head, length);
  if (folder != NULL && g_path_is_absolute (folder) && strchr (folder, '\n') == NULL
      && g_utf8_validate (folder, -1, NULL))
    pd_imported_session_set_cwd (self->session, folder);
}

static gint64
ms_to_us (gint64 ms)
{
  return ms > 0 && ms <= G_MAXINT64 / 1000 ? ms * 1000 : 0;
}

/* @command: the id of the last command shown, whose output follows it. */
static void
add_to_pages (PdClineReader  *self,
              const char     *kind,
              const char     *text,
              const char     *group,
              char          **command,
              gint64          time)
{
  if (text == NULL || *text == '\0')
    return;
  if (strcmp (kind, "task") == 0 || strcmp (kind, "user_feedback") == 0)
    _pd_transcript_pages_add_text (self->pages, NULL, "user", text, group, time);
  else if (strcmp (kind, "text") == 0 || strcmp (kind, "completion_result") == 0 || strcmp (kind, "followup") == 0)
    _pd_transcript_pages_add_text (self->pages, NULL, "assistant", text, group, time);
  else if (strcmp (kind, "reasoning") == 0)
    _pd_transcript_pages_add_thinking (self->pages, NULL, text, group, time);
  else if (strcmp (kind, "tool") == 0)
    {
      static const PdJsonPick name_pick[] = { { "tool", NULL }, { NULL, NULL } };
      g_autoptr(JsonNode) root = NULL;
      JsonObject *object = _pd_import_parse_picked (&root, text, strlen (text), name_pick);
      const char *name = object ? pd_json_get_string (object, "tool") : NULL;

      _pd_transcript_pages_add_tool_call (self->pages, NULL, group, name ? name : "tool", text, group, time);
    }
  else if (strcmp (kind, "command") == 0)
    {
      g_autoptr(JsonObject) object = json_object_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *arguments = NULL;

      json_object_set_string_member (object, "command", text);
      node = json_node_init_object (json_node_alloc (), object);
      arguments = json_to_string (node, FALSE);
      _pd_transcript_pages_add_tool_call (self->pages, NULL, group, "execute_command", arguments, group, time);
      g_free (*command);
      *command = g_strdup (group);
    }
  else if (strcmp (kind, "command_output") == 0 && *command != NULL)
    _pd_transcript_pages_add_tool_result (self->pages, NULL, *command, text, FALSE, time);
  else if (strcmp (kind, "error") == 0)
    _pd_transcript_pages_add_text (self->pages, NULL, "system", text, group, time);
}

/* What a message is read for, its members' spans found by the walk that
 * checks the task; nothing of it is built but its kind and, for the kinds
 * that use it, its text (often a command's whole output), copied once at
 * its size.  A message's row: the message, then its members. */
static const char * const message_members[] = { "type", "ask", "say", "ts", "text", NULL };
enum { MEMBER_TYPE, MEMBER_ASK, MEMBER_SAY, MEMBER_TS, MEMBER_TEXT, N_MEMBERS };

static const PdJsonSpanPick message_pick[] = {
  { "type", 1 + MEMBER_TYPE }, { "ask", 1 + MEMBER_ASK }, { "say", 1 + MEMBER_SAY }, { "ts", 1 + MEMBER_TS },
  { "text", 1 + MEMBER_TEXT }, { NULL },
};
/* The task: an array of messages, a row each. */
static const PdJsonSpanPick document_pick = { "", 0, NULL, message_pick, 0, 1 + N_MEMBERS };

/* A task of more messages than this many rows is read by walking its
 * messages again, so that the rows cost at most a few megabytes whatever
 * the task (real tasks hold hundreds to a few thousand messages). */
#define MAX_MESSAGE_ROWS 32768

/* The messages one at a time: the rows the walk found, or when there were
 * more than it kept, the task walked again. */
typedef struct
{
  PdJsonSpan             array;
  const PdJsonSpanTable *table;
  guint                  index;
  gsize                  cursor;
  PdJsonSpan             row[1 + N_MEMBERS];
} Messages;

static const PdJsonSpan *
messages_next (Messages *messages)
{
  if (messages->table->cut)
    {
      if (!pd_json_span_next_members (messages->array, &messages->cursor, message_members, messages->row + 1,
                                      &messages->row[0]))
        return NULL;
      return messages->row;
    }
  if ((gsize) (messages->index + 1) * (1 + N_MEMBERS) > messages->table->rows->len)
    return NULL;
  return &g_array_index (messages->table->rows, PdJsonSpan, (gsize) messages->index++ * (1 + N_MEMBERS));
}

/* Whether the eight bytes at @p are ASCII digits, and if so their value:
 * the tests and the sum of fast_float's parse_eight_digits_unrolled(), on
 * the bytes as one little-endian word (a byte at a time elsewhere). */
static inline gboolean
eight_digits (const char *p,
              gint64     *value)
{
  guint64 word;

  memcpy (&word, p, 8);
  /* Each byte 0x30-0x39: its high nibble 3, and adding 6 leaves it 3. */
  if ((word & G_GUINT64_CONSTANT (0xF0F0F0F0F0F0F0F0))
      != G_GUINT64_CONSTANT (0x3030303030303030)
      || ((word + G_GUINT64_CONSTANT (0x0606060606060606)) & G_GUINT64_CONSTANT (0xF0F0F0F0F0F0F0F0))
         != G_GUINT64_CONSTANT (0x3030303030303030))
    return FALSE;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  word -= G_GUINT64_CONSTANT (0x3030303030303030);
  word = word * 10 + (word >> 8);
  word = ((word & G_GUINT64_CONSTANT (0x000000FF000000FF)) * G_GUINT64_CONSTANT (0x000F424000000064)
          + ((word >> 16) & G_GUINT64_CONSTANT (0x000000FF000000FF)) * G_GUINT64_CONSTANT (0x0000271000000001)) >> 32;
  *value = (gint64) (guint32) word;
#else
  *value = 0;
  for (guint i = 0; i < 8; i++)
    *value = *value * 10 + (p[i] - '0');
#endif
  return TRUE;
}

/* pd_json_get_int() on a member's span: a whole number, or a double that
 * fits; @fallback for anything else. */
static gint64
span_get_int (PdJsonSpan value,
              gint64     fallback)
{
  g_autoptr(JsonNode) node = NULL;
  gint64 n = 0;
  gsize i = 0;

  if (!pd_json_span_is_number (value))
    return fallback;
  /* The common case, a few digits, without a node: eight at a time (a
   * message's time is thirteen), then one at a time. */
  if (value.length < 18 && value.text[0] != '-')
    {
      if (value.length >= 8 && eight_digits (value.text, &n))
        i = 8;
      for (; i < value.length && (guchar) (value.text[i] - '0') <= 9; i++)
        n = n * 10 + (value.text[i] - '0');
      if (i == value.length)
        return n;
    }
  if (!(node = pd_json_span_to_node (value, NULL)) || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (node);

      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
        return (gint64) d;
    }
  return fallback;
}

/* What the replay tells apart of a message's kind: the kinds whose text
 * it reads, any other, or none (no string).  Told in place, as the copy
 * compares (a copy of each kind, freed again, was a sixth of a task's
 * reading). */
typedef enum { KIND_NONE, KIND_OTHER, KIND_TASK, KIND_PROGRESS, KIND_TOOL } Kind;

static Kind
span_kind (PdJsonSpan kind)
{
  static const char * const words[] = { [KIND_TASK] = "task", [KIND_PROGRESS] = "task_progress", [KIND_TOOL] = "tool" };

  if (!pd_json_span_is_string (kind) || kind.length < 2)
    return KIND_NONE;
  /* A string with no escape is its bytes, told by its length first (a
   * call to strlen() and memcmp() for each word was a twentieth of a
   * task's reading); one with an escape is compared unescaped (rare). */
  if (kind.length == 6 && memcmp (kind.text, "\"task\"", 6) == 0)
    return KIND_TASK;
  if (kind.length == 6 && memcmp (kind.text, "\"tool\"", 6) == 0)
    return KIND_TOOL;
  if (kind.length == 15 && memcmp (kind.text, "\"task_progress\"", 15) == 0)
    return KIND_PROGRESS;
  if (memchr (kind.text + 1, '\\', kind.length - 2) == NULL)
    return KIND_OTHER;
  for (Kind k = KIND_TASK; k <= KIND_TOOL; k++)
    if (pd_json_span_string_equal (kind, words[k]))
      return k;
  return KIND_OTHER;
}

/* memmem (@text, @length, "updateTodoList", 14) != NULL, by memchr() for
 * its 'L', a rare byte in a tool message's text (glibc's memmem() for each
 * of a task's tool messages was a thirtieth of its reading). */
static gboolean
has_list_tool (const char *text,
               gsize       length)
{
  static const char needle[] = "updateTodoList";
  const gsize at = 10;  /* where its 'L' is */
  const char *p;
  const char *last;

  if (length < sizeof needle - 1)
    return FALSE;
  p = text + at;
  last = text + length - (sizeof needle - 1) + at;  /* the last place for it */
  while (p <= last && (p = memchr (p, 'L', (gsize) (last - p) + 1)) != NULL)
    {
      if (memcmp (p - at, needle, sizeof needle - 1) == 0)
        return TRUE;
      p++;
    }
  return FALSE;
}

/* pd_json_span_string_equal (@type, "ask"), most types told by their
 * length alone: an escape makes a string shorter, never longer. */
static gboolean
span_is_ask (PdJsonSpan type)
{
  if (type.length == 5)
    return memcmp (type.text, "\"ask\"", 5) == 0;
  return type.length > 5 && pd_json_span_string_equal (type, "ask");
}

/* The task again, whole: the checklist is replayed from its start. */
static gboolean
cline_update (PdTranscriptReader  *reader,
              GCancellable        *cancellable,
              GError             **error)
{
  PdClineReader *self = PD_CLINE_READER (reader);
  PdImportStats *stats = pd_imported_session_get_stats (self->session);
  PdChecklist *checklist = pd_imported_session_get_checklist (self->session);
  g_autofree char *contents = NULL;
  g_autofree char *command = NULL;
  PdImportSource source;
  gboolean is_kilo;
  gboolean cline_lists = FALSE;
  gboolean title_set = FALSE;
  g_autoptr(GArray) rows = NULL;
  PdJsonSpanTable table = { NULL, MAX_MESSAGE_ROWS, FALSE };
  Messages messages = { { NULL, 0 }, &table, 0, 0 };
  const PdJsonSpan *row;
  gsize length;

  if (!_pd_import_read_file (self->path, DOCUMENT_MAX, &contents, &length, error))
    return FALSE;
  stats->bytes_read += length;
  /* Room for a row a message (none is under 64 bytes in real tasks), so
   * that the walk does not grow the rows again and again, copying them. */
  rows = g_array_sized_new (FALSE, FALSE, sizeof (PdJsonSpan),
                            (guint) MIN (length / 64 + 1, MAX_MESSAGE_ROWS) * (1 + N_MEMBERS));
  table.rows = rows;
  /* Checked whole and each message's members found in the same walk, then
   * read a message at a time in place: the whole tree took 14 to 30 times
   * the file's size, a tree of each message's few members a third of the
   * time, and a walk to check and another to read twice the one. */
  if (!pd_json_check_spans_value (contents, length, &document_pick, &messages.array, &table, NULL)
      || !pd_json_span_is_array (messages.array))
    {
      /* Caught while the extension rewrites it: keep what was read. */
      if (self->read_once)
        {
          stats->skipped_lines++;
          return TRUE;
        }
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: not a task's messages (one JSON array)", self->path);
      return FALSE;
    }
  if (!self->read_once && pd_imported_session_get_cwd (self->session) == NULL)
    read_task_history (self);
  if (!self->read_once && pd_imported_session_get_cwd (self->session) == NULL)
    read_environment (self);
  self->read_once = TRUE;

  is_kilo = source_of_path (self->path, &source) && source == PD_IMPORT_SOURCE_KILO;
  /* Lines (messages) read in all passes, as bytes are: the index counts
   * what each pass read from the difference. */
  stats->skipped_lines = 0;
  stats->applied_updates = 0;
  stats->ignored_updates = 0;
  pd_checklist_clear_agent_items (checklist);

  for (guint i = 0; (row = messages_next (&messages)); i++)
    {
      const PdJsonSpan *values = row + 1;
      PdJsonSpan element = row[0];
      g_autofree char *text = NULL;
      g_autofree char *group = NULL;
      PdJsonSpan kind_span;
      Kind k;
      GPtrArray *items = NULL;
      guint hidden = 0;
      PdChecklistOrigin origin = PD_CHECKLIST_ORIGIN_CLINE_PROGRESS;
      gint64 time;

      if ((i & 0xfff) == 0xfff && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      stats->lines++;
      if (!pd_json_span_is_object (element) || !pd_json_span_is_string (values[MEMBER_TYPE]))
        {
          stats->skipped_lines++;
          continue;
        }
      kind_span = span_is_ask (values[MEMBER_TYPE]) ? values[MEMBER_ASK] : values[MEMBER_SAY];
      if ((k = span_kind (kind_span)) == KIND_NONE)
        {
          stats->skipped_lines++;
          continue;
        }
      /* Its text when it is wanted: the pages show every text, the replay
       * only those of a few kinds (of tool messages, Roo's list tool's). */
      if (self->pages != NULL
          || (k != KIND_OTHER
              && (k != KIND_TOOL
                  || has_list_tool (values[MEMBER_TEXT].text, values[MEMBER_TEXT].length))))
        text = pd_json_span_dup_string (values[MEMBER_TEXT]);
      time = ms_to_us (span_get_int (values[MEMBER_TS], 0));
      pd_imported_session_note_time (self->session, time);
      if (self->pages != NULL)
        {
          g_autofree char *kind = pd_json_span_dup_string (kind_span);

          group = g_strdup_printf ("%u", i);
          add_to_pages (self, kind, text, group, &command, time);
        }

      if (!title_set && k == KIND_TASK && text != NULL && *text)
        {
          g_autofree char *title = _pd_import_title_from_text (text);

          pd_imported_session_set_title (self->session, title);
          title_set = TRUE;
        }

      if (k == KIND_PROGRESS)
        {
          items = pd_cline_parse_checklist_cut (text, &hidden);
          cline_lists = TRUE;
          if (items == NULL)
            stats->ignored_updates++;
        }
      else if (k == KIND_TOOL)
        {
          gboolean is_todo_tool;

          items = roo_items (text, &is_todo_tool, &hidden);
          /* Kilo Code's list is its own, named as the agent everywhere. */
          origin = is_kilo ? PD_CHECKLIST_ORIGIN_KILO_TODOS : PD_CHECKLIST_ORIGIN_ROO_TODOS;
          if (is_todo_tool && items == NULL)
            stats->ignored_updates++;
        }
      if (items != NULL)
        {
          pd_checklist_replace_agent_items_cut (checklist, origin, items, hidden);
          _pd_import_applied_update (self->session, self->pages, time);
        }
    }

  /* Not told by its folder: Cline writes task_progress, Roo and Kilo the
   * tool. */
  if (!source_of_path (self->path, &source))
    pd_imported_session_set_source (self->session, cline_lists || pd_checklist_get_origin (checklist) != PD_CHECKLIST_ORIGIN_ROO_TODOS
                                                   ? PD_IMPORT_SOURCE_CLINE : PD_IMPORT_SOURCE_ROO);
  return TRUE;
}

PdImportedSession *
pd_cline_read (const char  *path,
               GError     **error)
{
  g_autoptr(PdClineReader) reader = pd_cline_reader_new (path);

  if (!cline_update (PD_TRANSCRIPT_READER (reader), NULL, error))
    return NULL;
  return g_object_ref (reader->session);
}
