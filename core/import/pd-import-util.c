/* pd-import-util.c: helpers the transcript readers share.
 *
 * Recognising which tool wrote a transcript is pd-import-sniff.c's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <glib/gi18n-lib.h>

#include "pd-import-private.h"
#include "pd-import-skip.h"
#include "pd-jsonl-reader.h"
#include "pd-transcript-pages-private.h"
#include "pd-json.h"
#include "pd-safe-text.h"

/* Off only in tests, which compare what readers make of lines picked with
 * what they make of whole trees. */
static gboolean pick_lines = TRUE;

/* The most values a transcript line (or any text another agent wrote) may
 * hold before a tree is built of it: one unit (pd_json_values_exceed(),
 * about 100 bytes of json-glib's tree) for each LINE_BYTES_PER_UNIT bytes,
 * and LINE_UNITS_SLACK more.  A Claude Code line whose message content was
 * 15 MiB of "[{},{},...]" (one unit a byte) imported in 25 MB but took
 * `serve`, `sessions show` and the Transcript page to 1.57 GB, and as a
 * TodoWrite's todos the import too (tried as an attacker would).  Real
 * lines are far sparser: of the fixtures' 768 transcript lines
 * (tests/fixtures and the shared ones: Claude Code, Codex, OpenCode, Qwen,
 * Gemini, Cline) the densest holds one unit for 6.6 bytes (an OpenCode
 * part of 79 bytes), the densest of 4 KiB or more one for 8.7 (a Codex
 * line of 7 KB), and none more than 2 946 units (a Codex line of 25 KB,
 * under the slack alone); Claude Code's are 10.5 at their densest.  A
 * structured patch of blank lines (" ",) is four bytes a unit, and still
 * read.  Only a long run of bare one-digit numbers or empty containers
 * is denser, which no agent's line holds.
 *
 * The per-byte bound alone still let a line AT it cost 25 to 30 times its
 * size: a 16 MB TodoWrite of "[    0]"-style values took `sessions show
 * --json` to 468 MB, three such lines in a 50 MB file to 1.40 GB, and
 * `serve` reading that session to 1.41 GB (tried as an attacker would).
 * So a line also holds at most LINE_UNITS_MAX units, whatever its size:
 * at about 100 to 120 bytes of tree a unit (the figures above, and 468 MB
 * for the 4.2 million of that line) a tree of at most about 30 MB.  That
 * is 89 times the most units any fixture line holds (2 946), and a long
 * real line is long for its strings, which are no units: a 10 MiB tool
 * result is one.  What it refuses is a structured patch of over 262 144
 * lines, or a list of as many files, in one line: a placeholder then,
 * where the session's other lines still show.  The cap is for trees built
 * whole, and for every Claude Code line (whose pick builds a TodoWrite's
 * todos: 389 MB for that line).  The Qwen Code and Gemini CLI replays
 * read their plan calls in place and keep the first 500 items of a list
 * of 200 000, the rest counted (the import-memory proof), and their picks
 * build no list: a line they read in place or picked is held to the
 * per-byte bound alone (_pd_import_too_dense()). */
#define LINE_BYTES_PER_UNIT 4
#define LINE_UNITS_SLACK    4096
#define LINE_UNITS_MAX      (256 * 1024)

gboolean
_pd_import_too_dense (const char *text,
                      gsize       length)
{
  /* A '{' is two units, so a text this short cannot exceed the bound. */
  if (length <= LINE_UNITS_SLACK / 2)
    return FALSE;
  return pd_json_values_exceed (text, length, length / LINE_BYTES_PER_UNIT + LINE_UNITS_SLACK);
}

gboolean
_pd_import_too_many_values (const char *text,
                            gsize       length)
{
  if (length <= LINE_UNITS_SLACK / 2)
    return FALSE;
  return pd_json_values_exceed (text, length,
                                MIN (length / LINE_BYTES_PER_UNIT + LINE_UNITS_SLACK, LINE_UNITS_MAX));
}

JsonNode *
_pd_import_parse_json (const char *text,
                       gssize      length)
{
  gsize size;

  if (text == NULL)
    return NULL;
  size = length < 0 ? strlen (text) : (gsize) length;
  if (_pd_import_too_many_values (text, size))
    return NULL;
  return _pd_import_parse_defused (text, (gssize) size);
}

/* One line's top-level object, whole or picked (@pick, when lines are
 * picked), in *@root. */
static JsonObject *
parse_line (JsonNode         **root,
            const char        *line,
            gsize              length,
            const PdJsonPick  *pick)
{
  g_clear_pointer (root, json_node_unref);
  if (pick != NULL && pick_lines ? _pd_import_too_dense (line, length) : _pd_import_too_many_values (line, length))
    return NULL;
  if (pick == NULL || !pick_lines)
    *root = _pd_import_parse_defused (line, (gssize) length);
  else if (!(*root = pd_json_parse_picked (line, (gssize) length, pick, NULL))
           && pd_json_nesting_exceeds (line, (gssize) length, PD_JSON_FOREIGN_MAX_DEPTH))
    {
      /* A call whose arguments nest too deep stays, with a placeholder for
       * them (it vanished with its line). */
      gsize defused_length = 0;
      g_autofree char *defused = _pd_import_defuse_nesting (line, length, &defused_length);

      if (defused != NULL)
        *root = pd_json_parse_picked (defused, (gssize) defused_length, pick, NULL);
    }
  if (*root == NULL || !JSON_NODE_HOLDS_OBJECT (*root))
    return NULL;
  return json_node_get_object (*root);
}

JsonObject *
_pd_import_parse_object (JsonNode   **root,
                         const char  *line,
                         gsize        length)
{
  return parse_line (root, line, length, NULL);
}

void
_pd_import_set_pick_lines (gboolean pick)
{
  pick_lines = pick;
}

gboolean
_pd_import_get_pick_lines (void)
{
  return pick_lines;
}

JsonObject *
_pd_import_parse_picked (JsonNode         **root,
                         const char        *line,
                         gsize              length,
                         const PdJsonPick  *pick)
{
  return parse_line (root, line, length, pick);
}

typedef struct
{
  GPtrArray *items;
  GFunc      func;
  gpointer   user_data;
  gint       next;
} Parallel;

static gpointer
parallel_worker (gpointer data)
{
  Parallel *parallel = data;
  gint i;

  while ((i = g_atomic_int_add (&parallel->next, 1)) < (gint) parallel->items->len)
    parallel->func (g_ptr_array_index (parallel->items, i), parallel->user_data);
  return NULL;
}

void
_pd_import_run_parallel (GPtrArray *items,
                         GFunc      func,
                         gpointer   user_data)
{
  /* Asked once: g_get_num_processors() reads a file of /sys each time,
   * and the scanner runs this for each folder (each task of an editor
   * extension's, of one file).  Two threads asking at once both ask. */
  static gint processors = 0;
  Parallel parallel = { items, func, user_data, 0 };
  gint known = g_atomic_int_get (&processors);
  guint n;
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();

  if (known == 0)
    g_atomic_int_set (&processors, (known = (gint) MAX (g_get_num_processors (), 1)));
  n = MIN (MIN ((guint) known, 4u), items->len);

  for (guint i = 1; i < n; i++)
    g_ptr_array_add (threads, g_thread_new ("pd-import", parallel_worker, &parallel));
  parallel_worker (&parallel);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  const char *na = *(const char * const *) a;
  const char *nb = *(const char * const *) b;
  int order = g_ascii_strcasecmp (na, nb);

  return order != 0 ? order : strcmp (na, nb);
}

void
_pd_import_sort_names (GPtrArray *names)
{
  g_ptr_array_sort (names, compare_names);
}

void
_pd_import_applied_update (PdImportedSession *session,
                           PdTranscriptPages *pages,
                           gint64             time)
{
  pd_imported_session_get_stats (session)->applied_updates++;
  if (pages != NULL)
    _pd_transcript_pages_add_version (pages, pd_imported_session_get_checklist (session), time);
}

GStrv
_pd_import_resume_argv (const char         *program,
                        const char * const *words,
                        const char         *id)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  gsize length;

  if (id == NULL || (length = strlen (id)) == 0 || length > 128 || id[0] == '-')
    return NULL;
  for (const char *p = id; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_' && *p != '.')
      return NULL;

  builder = g_strv_builder_new ();
  g_strv_builder_add (builder, program);
  for (guint i = 0; words && words[i]; i++)
    g_strv_builder_add (builder, words[i]);
  g_strv_builder_add (builder, id);
  return g_strv_builder_end (builder);
}

static inline gboolean
digits (const char *p,
        guint       n,
        int        *value)
{
  int v = 0;

  for (guint i = 0; i < n; i++)
    {
      if (!g_ascii_isdigit (p[i]))
        return FALSE;
      v = v * 10 + (p[i] - '0');
    }
  *value = v;
  return TRUE;
}

/* Days from 1970-01-01 to a date of the proleptic Gregorian calendar. */
static gint64
days_from_civil (int year,
                 int month,
                 int day)
{
  gint64 y = year - (month <= 2);
  gint64 era = (y >= 0 ? y : y - 399) / 400;
  gint64 yoe = y - era * 400;
  gint64 doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  gint64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

  return era * 146097 + doe - 719468;
}

/* The form every line of a transcript has, "2026-02-01T10:20:30.123Z", read
 * without GLib's parser, which allocates a date and looks up a time zone for
 * each of millions of lines.  The value is the one GLib computes, to the
 * microsecond (the fraction goes through the same floating point steps as
 * g_date_time_new()); anything else (offsets, leap seconds, more than six
 * digits of fraction, out of range fields) is left to GLib. */
static gboolean
parse_time_utc (const char *text,
                gint64     *time)
{
  int year, month, day, hour, minute, second;
  guint64 value, divisor = 1;
  const char *p;
  double seconds;
  volatile gint64 usec;
  volatile double usecd;

  if (!digits (text, 4, &year) || text[4] != '-' || !digits (text + 5, 2, &month) || text[7] != '-'
      || !digits (text + 8, 2, &day) || text[10] != 'T' || !digits (text + 11, 2, &hour) || text[13] != ':'
      || !digits (text + 14, 2, &minute) || text[16] != ':' || !digits (text + 17, 2, &second))
    return FALSE;
  if (year < 1 || month < 1 || month > 12 || day < 1
      || day > g_date_get_days_in_month ((GDateMonth) month, (GDateYear) year)
      || hour > 23 || minute > 59 || second > 59)
    return FALSE;

  value = (guint64) second;
  p = text + 19;
  if (*p == '.')
    {
      guint n = 0;

      for (p++; g_ascii_isdigit (*p) && n < 6; p++, n++)
        {
          value = value * 10 + (guint64) (*p - '0');
          divisor *= 10;
        }
      if (n == 0 || g_ascii_isdigit (*p))
        return FALSE;
    }
  if (p[0] != 'Z' || p[1] != '\0')
    return FALSE;

  /* As g_date_time_new() turns seconds into microseconds. */
  seconds = (double) value / (double) divisor;
  usec = (gint64) (seconds * G_USEC_PER_SEC);
  usecd = (usec + 1) * 1e-6;
  if (usecd <= seconds)
    usec++;

  *time = (days_from_civil (year, month, day) * 86400 + hour * 3600 + minute * 60 + second) * G_USEC_PER_SEC
          + usec % G_USEC_PER_SEC;
  return TRUE;
}

gint64
_pd_import_parse_time (const char *text)
{
  g_autoptr(GDateTime) time = NULL;
  gint64 fast;

  if (text == NULL || *text == '\0')
    return 0;
  if (parse_time_utc (text, &fast))
    return fast;
  /* Every form GLib reads starts with the year's digits: a text that does
   * not (a fixture's "[trimmed for fixture]") is no time, said without
   * GLib's parser and the time zone it makes first. */
  if (!g_ascii_isdigit (*text))
    return 0;
  if (!(time = g_date_time_new_from_iso8601 (text, NULL)))
    return 0;
  return g_date_time_to_unix (time) * G_USEC_PER_SEC + g_date_time_get_microsecond (time);
}

char *
_pd_import_clean_text (const char *text)
{
  GString *out;
  glong n = 0;

  if (text == NULL)
    return g_strdup ("");

  /* Sized for what is kept, not for a text of many megabytes. */
  out = g_string_sized_new (strnlen (text, PD_IMPORT_MAX_TEXT * 4));
  for (const char *p = text; *p && n < PD_IMPORT_MAX_TEXT; p = g_utf8_next_char (p), n++)
    {
      gunichar c;

      /* Printable ASCII is kept as it is (none of it is invisible): a run
       * of it at once. */
      if ((guchar) *p >= 0x20 && (guchar) *p < 0x7f)
        {
          const char *run = p;

          while ((guchar) *p >= 0x20 && (guchar) *p < 0x7f && n < PD_IMPORT_MAX_TEXT)
            p++, n++;
          g_string_append_len (out, run, p - run);
          if (!*p || n >= PD_IMPORT_MAX_TEXT)
            break;
        }
      c = g_utf8_get_char (p);

      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029)
        {
          if (out->len > 0 && out->str[out->len - 1] != ' ')
            g_string_append_c (out, ' ');
        }
      else if (pd_safe_text_is_invisible (c))
        /* A bidi override or another invisible format character would make
         * a label or a terminal show the item in another order than it is
         * written: shown instead, as the escape a reader can see. */
        g_string_append_printf (out, "<U+%04X>", c);
      else
        g_string_append_unichar (out, c);
    }
  while (out->len > 0 && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}

/* Markdown's hard line break, a backslash at the end of a line, is a line
 * break: as a title's words it read ":(\ \ This is the relevant CSS:\ \"
 * (tried as a new user would). */
static char *
without_hard_breaks (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));

  for (const char *p = text; *p != '\0'; p++)
    if (!(*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))))
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

char *
_pd_import_title_from_text (const char *text)
{
  g_autofree char *plain = text != NULL && strchr (text, '\\') != NULL ? without_hard_breaks (text) : NULL;
  g_autofree char *clean = _pd_import_clean_text (plain != NULL ? plain : text);
  const char *end;
  const char *space = NULL;

  if (g_utf8_strlen (clean, -1) <= PD_IMPORT_TITLE_MAX)
    return g_steal_pointer (&clean);

  /* With its "…" the title keeps to the limit, so a title cut once is
   * never cut again when read back (a title stored before, taken again). */
  end = g_utf8_offset_to_pointer (clean, PD_IMPORT_TITLE_MAX - 1);
  for (const char *p = g_utf8_offset_to_pointer (clean, PD_IMPORT_TITLE_MAX * 4 / 5); p < end; p++)
    if (*p == ' ')
      space = p;
  if (space != NULL)
    end = space;
  while (end > clean && end[-1] == ' ')
    end--;
  return g_strdup_printf ("%.*s…", (int) (end - clean), clean);
}

GPtrArray *
_pd_import_items_from_array (JsonArray          *array,
                             const char * const *text_members,
                             const char         *id_member)
{
  return _pd_import_items_from_array_cut (array, text_members, id_member, NULL);
}

GPtrArray *
_pd_import_items_from_array_cut (JsonArray          *array,
                                 const char * const *text_members,
                                 const char         *id_member,
                                 guint              *n_hidden)
{
  guint hidden = 0;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
  guint n;

  if (array == NULL)
    return NULL;

  n = json_array_get_length (array);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *object;
      const char *text = NULL;
      const char *status_text;
      PdChecklistStatus status;
      g_autofree char *clean = NULL;
      g_autofree char *id = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return NULL;
      object = json_node_get_object (element);
      for (guint j = 0; text == NULL && text_members[j]; j++)
        text = pd_json_get_string (object, text_members[j]);
      if (text == NULL)
        return NULL;
      status_text = pd_json_get_string (object, "status");
      if (json_object_has_member (object, "status") && status_text == NULL)
        return NULL;
      if (!pd_checklist_status_parse (status_text, &status))
        continue;  /* "deleted" in a snapshot: not an item */
      if (items->len >= PD_IMPORT_MAX_ITEMS)
        {
          /* Counted, not kept; the rest must still be a list. */
          hidden++;
          continue;
        }
      clean = _pd_import_clean_text (text);
      id = id_member ? pd_json_dup_id (object, id_member) : NULL;
      g_ptr_array_add (items, pd_checklist_item_new (clean, status, id));
    }

  if (n_hidden != NULL)
    *n_hidden = hidden;
  return g_steal_pointer (&items);
}

PdImportList *
_pd_import_list_new (GPtrArray *items,
                     guint      n_hidden)
{
  PdImportList *self = g_new0 (PdImportList, 1);

  self->items = items;
  self->n_hidden = n_hidden;
  return self;
}

void
_pd_import_list_free (PdImportList *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_free (self);
}

void
_pd_import_list_apply (PdImportList      *self,
                       PdChecklist       *checklist,
                       PdChecklistOrigin  origin,
                       gboolean           take)
{
  GPtrArray *items;

  if (take)
    items = g_steal_pointer (&self->items);
  else
    {
      items = g_ptr_array_new_full (self->items->len, (GDestroyNotify) pd_checklist_item_free);
      for (guint k = 0; k < self->items->len; k++)
        g_ptr_array_add (items, pd_checklist_item_copy (g_ptr_array_index (self->items, k)));
    }
  pd_checklist_replace_agent_items_cut (checklist, origin, items, self->n_hidden);
}

/* pd_json_dup_id() on a member's value (length 0: none). */
static char *
span_dup_id (PdJsonSpan value)
{
  if (pd_json_span_is_string (value))
    {
      g_autofree char *text = pd_json_span_dup_string (value);

      return *text ? g_steal_pointer (&text) : NULL;
    }
  if (pd_json_span_is_number (value))
    {
      /* Rare: read as the tree reads it, for the same integers. */
      g_autoptr(JsonObject) wrapper = json_object_new ();
      JsonNode *node = pd_json_span_to_node (value, NULL);

      if (node == NULL)
        return NULL;
      json_object_set_member (wrapper, "id", node);
      return pd_json_dup_id (wrapper, "id");
    }
  return NULL;
}

GPtrArray *
_pd_import_items_from_span (PdJsonSpan          array,
                            const char * const *text_members,
                            const char         *id_member)
{
  return _pd_import_items_from_span_cut (array, text_members, id_member, NULL);
}

/* One element of a to-do list from its members' spans (@values: the
 * @n_text text members, the status, the id when @has_id), added to @items
 * or past PD_IMPORT_MAX_ITEMS counted in *@hidden; FALSE when the list is
 * not one (an element of another shape). */
static gboolean
add_item_from_spans (GPtrArray        *items,
                     guint            *hidden,
                     PdJsonSpan        element,
                     const PdJsonSpan *values,
                     guint             n_text,
                     gboolean          has_id)
{
  PdChecklistStatus status;
  g_autofree char *text = NULL;
  g_autofree char *redacted = NULL;
  g_autofree char *status_text = NULL;
  g_autofree char *clean = NULL;
  g_autofree char *id = NULL;
  PdJsonSpan string = { NULL, 0 };
  PdChecklistItem *item;

  if (!pd_json_span_is_object (element))
    return FALSE;
  if (items->len >= PD_IMPORT_MAX_ITEMS)
    {
      gboolean has_text = FALSE;

      /* Past what is kept: checked and counted, nothing built, so a
       * list of a million items costs its text's walk alone. */
      for (guint j = 0; !has_text && j < n_text; j++)
        has_text = pd_json_span_is_string (values[j]);
      if (!has_text || (values[n_text].length > 0 && !pd_json_span_is_string (values[n_text])))
        return FALSE;
      if (!pd_json_span_string_equal (values[n_text], "deleted"))
        (*hidden)++;
      return TRUE;
    }
  /* The first text member that is a string: its text unescaped, cleaned
   * and redacted, or that text as the same string gave it last (a list is
   * written whole at every change: most of its texts were met before). */
  for (guint j = 0; text == NULL && redacted == NULL && j < n_text; j++)
    if (pd_json_span_is_string (values[j])
        && !(redacted = _pd_checklist_memo_lookup_json (values[j].text, values[j].length))
        && (text = pd_json_span_dup_string (values[j])))
      string = values[j];
  if (text == NULL && redacted == NULL)
    return FALSE;
  if (values[n_text].length > 0 && !(status_text = pd_json_span_dup_string (values[n_text])))
    return FALSE;
  if (!pd_checklist_status_parse (status_text, &status))
    return TRUE;  /* "deleted" in a snapshot: not an item */
  id = has_id ? span_dup_id (values[n_text + 1]) : NULL;
  if (redacted != NULL)
    {
      g_ptr_array_add (items, _pd_checklist_item_new_redacted (g_steal_pointer (&redacted), status, id));
      return TRUE;
    }
  clean = _pd_import_clean_text (text);
  item = pd_checklist_item_new (clean, status, id);
  _pd_checklist_memo_store_json (string.text, string.length, item->text);
  g_ptr_array_add (items, item);
  return TRUE;
}

GPtrArray *
_pd_import_items_from_span_cut (PdJsonSpan          array,
                                const char * const *text_members,
                                const char         *id_member,
                                guint              *n_hidden)
{
  guint hidden = 0;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
  const char *names[8];
  PdJsonSpan values[G_N_ELEMENTS (names)];
  guint n_text;
  PdJsonSpan element;
  gsize cursor = 0;

  if (!pd_json_span_is_array (array))
    return NULL;

  /* The members read, in one pass over each item: the text members, the
   * status, the id. */
  for (n_text = 0; text_members[n_text] != NULL; n_text++)
    {
      g_assert (n_text < G_N_ELEMENTS (names) - 3);
      names[n_text] = text_members[n_text];
    }
  names[n_text] = "status";
  names[n_text + 1] = id_member;
  names[n_text + 2] = NULL;

  while (pd_json_span_next_members (array, &cursor, names, values, &element))
    if (!add_item_from_spans (items, &hidden, element, values, n_text, id_member != NULL))
      return NULL;

  if (n_hidden != NULL)
    *n_hidden = hidden;
  return g_steal_pointer (&items);
}

GPtrArray *
_pd_import_items_from_rows (const PdJsonSpan *rows,
                            guint             n_rows,
                            guint             row_size,
                            guint             n_text,
                            gboolean          has_id,
                            guint            *n_hidden)
{
  guint hidden = 0;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);

  g_return_val_if_fail (row_size >= n_text + 2 + (has_id ? 1 : 0), NULL);

  for (guint i = 0; i < n_rows; i++)
    {
      const PdJsonSpan *row = rows + (gsize) i * row_size;

      if (!add_item_from_spans (items, &hidden, row[0], row + 1, n_text, has_id))
        return NULL;
    }
  if (n_hidden != NULL)
    *n_hidden = hidden;
  return g_steal_pointer (&items);
}

char *
_pd_import_result_text (JsonNode *content)
{
  GString *out;
  JsonArray *array;

  if (content == NULL)
    return NULL;
  if (pd_json_node_get_string (content) != NULL)
    return g_strdup (pd_json_node_get_string (content));
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return NULL;

  array = json_node_get_array (content);
  out = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *text;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      if ((text = pd_json_get_string (json_node_get_object (element), "text")))
        {
          if (out->len > 0)
            g_string_append_c (out, '\n');
          g_string_append (out, text);
        }
    }
  return g_string_free (out, FALSE);
}

static inline gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next occurrence of @needle in [@from, @end), or NULL. */
static const char *
find_next (const char *from,
           const char *end,
           const char *needle,
           gsize       length)
{
  return from < end ? memmem (from, (gsize) (end - from), needle, length) : NULL;
}

/* Just after the opening quote of the string value of member @key (quoted,
 * as a needle), from @from (where the needle first occurs) on; NULL when
 * no occurrence is a key with a string.  Blanks may stand around the
 * colon. */
const char *
_pd_import_string_of_key (const char *from,
                          const char *end,
                          const char *key)
{
  gsize length = strlen (key);

  for (const char *p = from; p != NULL; p = find_next (p + 1, end, key, length))
    {
      const char *q = p + length;

      while (q < end && is_blank (*q))
        q++;
      if (q >= end || *q != ':')
        continue;
      for (q++; q < end && is_blank (*q); q++)
        ;
      if (q < end && *q == '"')
        return q + 1;
    }
  return NULL;
}

/* Whether string @value (quoted, as a needle) is the value of member @key
 * (quoted) somewhere from @from (where the needle first occurs) on, blanks
 * allowed around the colon. */
gboolean
_pd_import_key_then_value (const char *line,
                           const char *from,
                           const char *end,
                           const char *key,
                           const char *value)
{
  gsize key_length = strlen (key);
  gsize length = strlen (value);

  for (const char *p = from; p != NULL; p = find_next (p + 1, end, value, length))
    {
      gsize q = (gsize) (p - line);   /* the bytes before it: line[0, q) */

      while (q > 0 && is_blank (line[q - 1]))
        q--;
      if (q == 0 || line[q - 1] != ':')
        continue;
      for (q--; q > 0 && is_blank (line[q - 1]); q--)
        ;
      if (q >= key_length && memcmp (line + q - key_length, key, key_length) == 0)
        return TRUE;
    }
  return FALSE;
}

gboolean
_pd_import_line_has_any (const char         *line,
                         gsize               length,
                         const char * const *needles)
{
  for (guint i = 0; needles[i]; i++)
    if (memmem (line, length, needles[i], strlen (needles[i])))
      return TRUE;
  return FALSE;
}

/* ---------------------------------------------------------------------- */
/* Tail reads                                                             */

static goffset tail_threshold = PD_IMPORT_TAIL_THRESHOLD;
static goffset tail_bound = PD_IMPORT_TAIL_BOUND;

goffset
_pd_import_get_tail_threshold (void)
{
  return tail_threshold;
}

goffset
_pd_import_get_tail_bound (void)
{
  return tail_bound;
}

goffset
_pd_import_first_tail_size (gboolean   *tail_done,
                            goffset     offset,
                            const char *path)
{
  GStatBuf st;

  if (*tail_done)
    return 0;
  *tail_done = TRUE;
  if (offset != 0 || g_stat (path, &st) != 0 || (goffset) st.st_size <= tail_threshold)
    return 0;
  return (goffset) st.st_size;
}

goffset
_pd_import_first_tail_size_of (gboolean *tail_done,
                               goffset   offset,
                               goffset   size)
{
  if (*tail_done)
    return 0;
  *tail_done = TRUE;
  return offset == 0 && size > tail_threshold ? size : 0;
}

void
_pd_import_set_tail_limits (goffset threshold,
                            goffset bound)
{
  tail_threshold = threshold > 0 ? threshold : PD_IMPORT_TAIL_THRESHOLD;
  tail_bound = bound > 0 ? bound : PD_IMPORT_TAIL_BOUND;
}

/* What _pd_import_read_file() reads from @fd (open, a regular file), which
 * it closes. */
static gboolean
read_open_file (int          fd,
                const char  *path,
                gsize        max_size,
                char       **contents,
                gsize       *length,
                GError     **error)
{
  g_autofree char *data = NULL;
  gsize size = 0;
  gsize room;
  struct stat st;

  if (fstat (fd, &st) != 0)
    st.st_size = 0;
  if ((guint64) st.st_size > max_size)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                   "%s: larger than %" G_GSIZE_FORMAT " bytes", path, max_size);
      *length = (gsize) st.st_size;
      return FALSE;
    }
  /* Read in place, in room for the size it has and the byte that finds its
   * end (a GString takes the next power of two: up to twice a document of
   * many megabytes). */
  room = (gsize) st.st_size + 2;
  data = g_malloc (room);
  for (;;)
    {
      gssize got;

      if (size + 1 >= room)
        {
          /* It grew while being read. */
          room = MIN (room * 2, max_size + 2);
          data = g_realloc (data, room);
        }
      got = read (fd, data + size, room - 1 - size);

      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          int saved = errno;

          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "%s: cannot be read: %s", path, g_strerror (saved));
          return FALSE;
        }
      if (got == 0)
        break;
      size += (gsize) got;
      if (size > max_size)
        {
          close (fd);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                       "%s: larger than %" G_GSIZE_FORMAT " bytes", path, max_size);
          *length = size;
          return FALSE;
        }
    }
  close (fd);
  data[size] = '\0';
  *length = size;
  *contents = g_steal_pointer (&data);
  return TRUE;
}

gboolean
_pd_import_read_file (const char  *path,
                      gsize        max_size,
                      char       **contents,
                      gsize       *length,
                      GError     **error)
{
  int fd = _pd_jsonl_open (path, error);

  *contents = NULL;
  *length = 0;
  if (fd < 0)
    return FALSE;
  return read_open_file (fd, path, max_size, contents, length, error);
}

/* @root/@rel opened with @flags (O_DIRECTORY for a folder): only @root is
 * reached through its path; each name of @rel below it is opened from the
 * folder above (openat) without following a symbolic link (O_NOFOLLOW),
 * and never as "." or "..", so no part of a store made a link to elsewhere
 * (tried as an attacker would) is read, even when it is swapped for one
 * after a walk looked at it.  -1 with errno set when it cannot be opened;
 * then *@link (nullable) is the path of the name that is a link, if one is. */
static int
open_beneath (const char  *root,
              const char  *rel,
              int          flags,
              char       **link)
{
  g_auto(GStrv) parts = g_strsplit (rel ? rel : "", "/", -1);
  int fd = g_open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK, 0);
  guint last = 0;

  if (link != NULL)
    *link = NULL;
  for (guint i = 0; parts[i]; i++)
    if (*parts[i] != '\0')
      last = i;
  for (guint i = 0; fd >= 0 && parts[i]; i++)
    {
      struct stat st;
      int next;
      int saved;

      if (*parts[i] == '\0')
        continue;
      if (strcmp (parts[i], ".") == 0 || strcmp (parts[i], "..") == 0)
        next = -1, errno = EINVAL;
      else
        next = openat (fd, parts[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
                                     | (i == last ? flags : O_DIRECTORY));
      saved = errno;
      if (next < 0 && link != NULL && fstatat (fd, parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode))
        {
          GString *path = g_string_new (root);

          for (guint j = 0; j <= i; j++)
            if (*parts[j] != '\0')
              g_string_append_printf (path, "%s%s", g_str_has_suffix (path->str, "/") ? "" : "/", parts[j]);
          *link = g_string_free (path, FALSE);
          saved = ELOOP;
        }
      close (fd);
      fd = next;
      errno = saved;
    }
  return fd;
}

/* The names in @root/@rel that end in @suffix (all when NULL), sorted;
 * NULL with @error when a folder cannot be opened.  No folder below @root
 * is reached through a link (open_beneath()): when one of @rel is a link
 * it is in @skipped (nullable) as "a symbolic link (not followed)", as the
 * folder walks say, and no names come. */
GPtrArray *
_pd_import_list_beneath (const char  *root,
                         const char  *rel,
                         const char  *suffix,
                         GPtrArray   *skipped,
                         GError     **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *link = NULL;
  int fd = open_beneath (root, rel, O_DIRECTORY, &link);
  struct dirent *dirent;
  DIR *handle;

  if (fd < 0 && link != NULL)
    {
      _pd_import_skip_add (skipped, link, "a symbolic link (not followed)");
      return g_steal_pointer (&names);
    }
  if (fd < 0 || !(handle = fdopendir (fd)))
    {
      int saved = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Error opening directory “%s%s%s”: %s",
                   root, rel && *rel ? "/" : "", rel ? rel : "", g_strerror (saved));
      return NULL;
    }
  while ((dirent = readdir (handle)))
    if (strcmp (dirent->d_name, ".") != 0 && strcmp (dirent->d_name, "..") != 0
        && (suffix == NULL || g_str_has_suffix (dirent->d_name, suffix)))
      g_ptr_array_add (names, g_strdup (dirent->d_name));
  closedir (handle);
  _pd_import_sort_names (names);
  return g_steal_pointer (&names);
}

/* _pd_import_read_file() of @root/@rel, reached as _pd_import_list_beneath()
 * reaches a folder: no name below @root through a link. */
gboolean
_pd_import_read_file_beneath (const char  *root,
                              const char  *rel,
                              gsize        max_size,
                              char       **contents,
                              gsize       *length,
                              GError     **error)
{
  g_autofree char *path = g_build_filename (root, rel, NULL);
  g_autofree char *link = NULL;
  int fd = open_beneath (root, rel, 0, &link);
  struct stat st;

  *contents = NULL;
  *length = 0;
  if (fd < 0)
    {
      int saved = errno;

      if (link != NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, "%s: a symbolic link (not followed)", link);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: cannot be opened: %s", path,
                     g_strerror (saved));
      return FALSE;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, "%s: not a regular file (%s)", path,
                   _pd_file_kind (st.st_mode));
      close (fd);
      return FALSE;
    }
  /* As _pd_jsonl_open() leaves it: reads of a regular file never wait. */
  fcntl (fd, F_SETFL, 0);
  return read_open_file (fd, path, max_size, contents, length, error);
}

/* Whether @storage (a folder's "storage", where OpenCode keeps its tree)
 * is a symbolic link: then it is not read, and is named in @skipped (tried
 * as an attacker would: a store's storage made a link to elsewhere). */
gboolean
_pd_import_is_storage_link (const char *storage,
                            GPtrArray  *skipped)
{
  struct stat st;

  if (lstat (storage, &st) != 0 || !S_ISLNK (st.st_mode))
    return FALSE;
  _pd_import_skip_add (skipped, storage, "a symbolic link (not followed)");
  return TRUE;
}

gboolean
_pd_import_is_opencode_storage (const char *dir)
{
  g_autofree char *session = g_build_filename (dir, "session", NULL);
  g_autofree char *part = g_build_filename (dir, "part", NULL);
  g_autofree char *message = g_build_filename (dir, "message", NULL);

  return g_file_test (session, G_FILE_TEST_IS_DIR)
         && (g_file_test (part, G_FILE_TEST_IS_DIR) || g_file_test (message, G_FILE_TEST_IS_DIR));
}

/* An OpenCode database file (opencode.db, opencode-*.db) or Kilo CLI's,
 * which keeps OpenCode's storage: what the scanner reads and the index
 * signs. */
gboolean
_pd_import_is_opencode_db_name (const char *name)
{
  return strcmp (name, "opencode.db") == 0 || (g_str_has_prefix (name, "opencode") && g_str_has_suffix (name, ".db"))
         || strcmp (name, "kilo.db") == 0;
}

/* ---------------------------------------------------------------------- */
/* The pages                                                              */

/* @raw's first @max bytes or so (whole characters), made safe to show
 * (pd_safe_text_block()); *@left_out: the bytes after them.  Only what a
 * page can keep is copied: a copy of a text of tens of megabytes for 4 KiB
 * of it was most of a page's memory. */
char *
_pd_import_safe_head (const char *raw,
                      gsize       max,
                      gsize      *left_out)
{
  gsize length = strlen (raw);
  g_autofree char *head = NULL;

  *left_out = 0;
  if (length <= max)
    return pd_safe_text_block (raw);
  head = _pd_transcript_pages_head_of_span (raw, length, max, left_out);
  return pd_safe_text_block (head);
}

/* (declared in pd-transcript-pages-private.h) */
char *
_pd_transcript_pages_head_of_span (const char *text,
                                   gsize       length,
                                   gsize       max,
                                   gsize      *left_out)
{
  gsize head = MIN (length, max);

  while (head > 0 && head < length && ((guchar) text[head] & 0xC0) == 0x80)
    head--;
  *left_out = length - head;
  return g_strndup (text, head);
}
