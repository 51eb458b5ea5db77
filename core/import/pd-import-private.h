/* pd-import-private.h: helpers the transcript readers share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-checklist.h"
#include "pd-imported-session.h"
#include "pd-json.h"
#include "pd-json-span.h"
#include "pd-json-util.h"
#include "pd-jsonl-reader.h"
#include "pd-transcript-pages-private.h"

G_BEGIN_DECLS

/* Requests waiting for their result, and tasks known, per session
 * (seed 001: "At most 100 known tasks and 100 pending requests"). */
#define PD_IMPORT_MAX_PENDING 100
#define PD_IMPORT_MAX_TASKS   100
/* Items in one list; longer lists are cut (a defensive bound, not a rule). */
#define PD_IMPORT_MAX_ITEMS   500
/* (Counted past it, never built: pd_checklist_get_n_hidden_agent_items().
 * Five hundred rows are more than any plan a person reads; a list of a
 * million items in one call is a file's attack, and building it took 16
 * times its text.) */
/* Text of one item, in characters. */
#define PD_IMPORT_MAX_TEXT    2000

/* Whether @text (JSON another agent wrote, need not be valid) holds more
 * values than its size can in a real transcript (pd-import-util.c says
 * why): refused before a tree is built of it, by every parse below. */
gboolean     _pd_import_too_many_values (const char *text,
                                         gsize       length);
/* The per-byte bound alone, for a line read in place or picked, which
 * builds no more than the members it names. */
gboolean     _pd_import_too_dense       (const char *text,
                                         gsize       length);
/* Parses JSON text written by another agent: pd_json_parse_full() with
 * PD_JSON_PARSE_FOREIGN; NULL when it is not one JSON value, or holds too
 * many values. */
JsonNode    *_pd_import_parse_json    (const char  *text,
                                       gssize       length);
/* Parses one line into its top-level object, kept in *@root (whatever
 * *@root held is released); NULL for anything that is not one JSON object. */
JsonObject  *_pd_import_parse_object  (JsonNode   **root,
                                       const char  *line,
                                       gsize        length);

/* _pd_import_parse_object() keeping only the members @pick names (see
 * pd_json_parse_picked()): the same lines refused, the same members read,
 * the rest of a line skipped without being built.  A reader's pick names
 * every member its handlers read of the lines it parses this way. */
JsonObject  *_pd_import_parse_picked  (JsonNode         **root,
                                       const char        *line,
                                       gsize              length,
                                       const PdJsonPick  *pick);
/* Why a part of a transcript is not shown: a line (or file, or row) of
 * more values than its size can hold (_pd_import_too_many_values()); one
 * longer than the readers take (PD_JSONL_DEFAULT_MAX_LINE, or an OpenCode
 * file over its bound), passed over unread
 * (pd_jsonl_reader_set_report_too_long()); a message read once the
 * session's pages held all the text they may (PdImportBudget); a tool
 * call's arguments nested deeper than json-glib is given
 * (PD_JSON_FOREIGN_MAX_DEPTH). */
typedef enum
{
  PD_IMPORT_UNSHOWN_TOO_MANY_VALUES,
  PD_IMPORT_UNSHOWN_TOO_LONG,
  PD_IMPORT_UNSHOWN_OVER_BUDGET,
  PD_IMPORT_UNSHOWN_TOO_DEEP,
} PdImportUnshown;

/* The placeholder's text for @why, of a part of @length bytes (translated;
 * free it). */
char        *_pd_import_unshown_text  (PdImportUnshown    why,
                                       gsize              length);
/* The message in @conversation of @pages (nullable: none) saying where a
 * part of @length bytes was not shown and why, in its place (so that the
 * messages around it keep their order). */
void         _pd_import_add_unshown   (PdTranscriptPages *pages,
                                       const char        *conversation,
                                       PdImportUnshown    why,
                                       gsize              length,
                                       gint64             time);

/* What a session's read keeps at once beyond the line it reads, in bytes
 * of kept text: a reader that keeps anything past its line (Gemini CLI's
 * messages until the replay, OpenCode's parts of a message, Claude Code's
 * calls waiting for their results) takes it from this budget first,
 * counted as each string's length and PD_IMPORT_VALUE_BYTES more for each
 * value (of a tree kept, every value; of a message kept in a compact form,
 * each string it keeps).  What the budget has no room for is not kept, and
 * the pages say so in its place (PD_IMPORT_UNSHOWN_OVER_BUDGET) with the
 * calls it held named. */
#define PD_IMPORT_SESSION_BYTES_MAX ((gsize) 128 * 1024 * 1024)
/* What a value costs beside its text: a json-glib node and its place in
 * its parent, about. */
#define PD_IMPORT_VALUE_BYTES 128

typedef struct
{
  gsize max;      /* PD_IMPORT_SESSION_BYTES_MAX, or a test's */
  gsize held;     /* bytes kept now */
  gsize peak;     /* the most held at once */
  guint refused;  /* things not kept */
} PdImportBudget;

void         _pd_import_budget_init   (PdImportBudget    *budget);
/* The bytes of @node's tree as the budget counts them: each value's
 * PD_IMPORT_VALUE_BYTES, each string's length, each member's name's. */
gsize        _pd_import_tree_bytes    (JsonNode          *node);
/* The bytes of one string kept (nullable: 0). */
gsize        _pd_import_text_bytes    (const char        *text);
/* Takes @bytes for something to keep: FALSE (nothing taken, counted
 * refused) when the budget has no room for them. */
gboolean     _pd_import_budget_take   (PdImportBudget    *budget,
                                       gsize              bytes);
/* Gives back @bytes of something no longer kept. */
void         _pd_import_budget_give   (PdImportBudget    *budget,
                                       gsize              bytes);
/* @text (JSON another agent wrote) nesting deeper than json-glib is given
 * (PD_JSON_FOREIGN_MAX_DEPTH): the same text with the outermost tool
 * call's arguments ("input", "args" or "arguments") around each too deep
 * part replaced by a string saying so (PD_IMPORT_UNSHOWN_TOO_DEEP), so the
 * call stays with its name; NULL when it needs none, or no such member
 * holds the deep part. */
char        *_pd_import_defuse_nesting (const char       *text,
                                        gsize             length,
                                        gsize            *new_length);
/* pd_json_parse_full() of foreign text, defused first when it nests too
 * deep (the values are the caller's to have counted). */
JsonNode    *_pd_import_parse_defused  (const char       *text,
                                        gssize            length);

/* For tests, of every budget of the process since the last reset: the
 * most any held at once, and how many trees they had no room for. */
void         _pd_import_budget_reset_stats (void);
gsize        _pd_import_budget_get_peak    (void);
guint        _pd_import_budget_get_refused (void);
/* For tests: the budget every read starts with, in bytes (0: the
 * default).  Not thread-safe: set before reading. */
void         _pd_import_set_session_bytes (gsize          max);

/* What the Claude Code and Codex readers pick of the lines they replay
 * (for the tests, which compare it with whole trees). */
extern const PdJsonPick _pd_claude_line_pick[];
extern const PdJsonPick _pd_codex_line_pick[];

/* For tests: FALSE makes _pd_import_parse_picked() build whole trees, so
 * what readers make of picked lines can be compared with them.  Not
 * thread-safe: set before reading. */
void         _pd_import_set_pick_lines (gboolean          pick);
gboolean     _pd_import_get_pick_lines (void);

/* Calls @func on each of @items (with @user_data), on as many threads as
 * there are processors, at most 4 (beyond that the disk, not the CPU, sets
 * the pace of reading transcripts); returns once all are done.  Each item
 * is one transcript's reader: they share nothing. */
void         _pd_import_run_parallel  (GPtrArray         *items,
                                       GFunc              func,
                                       gpointer           user_data);

/* A plan update the replay applied to the session's checklist at @time:
 * counted, and a version of the plan on @pages (nullable). */
void         _pd_import_applied_update (PdImportedSession *session,
                                        PdTranscriptPages *pages,
                                        gint64             time);

/* {program, words..., id}: the command line that continues a session in
 * its agent, or NULL when @id is no plain id (letters, digits, "-", "_",
 * ".", not starting with "-", at most 128 bytes). */
GStrv        _pd_import_resume_argv   (const char         *program,
                                       const char * const *words,
                                       const char         *id);

/* Sorts file names or paths (strings) by name, ignoring ASCII case, in a
 * stable order.  (g_ptr_array_sort() hands the comparison pointers to the
 * elements: g_ascii_strcasecmp() there compares addresses.) */
void         _pd_import_sort_names    (GPtrArray          *names);

/* ISO 8601 to unix µs; 0 when missing or unreadable. */
gint64       _pd_import_parse_time    (const char  *text);

/* One line of item text: control characters flattened, invisible format
 * characters (bidi overrides) shown as <U+202E>, length bounded. */
char        *_pd_import_clean_text    (const char  *text);

/* The most characters a title taken from a user's message keeps. */
#define PD_IMPORT_TITLE_MAX 120

/* A session's title from the text of a user's message: cleaned as
 * _pd_import_clean_text() cleans, and a text longer than
 * PD_IMPORT_TITLE_MAX characters cut at a word in its last fifth (else at
 * the limit) and ended with "…", so a cut title never reads as whole; the
 * result, "…" and all, is never longer than PD_IMPORT_TITLE_MAX, so a
 * title given again comes back unchanged. */
char        *_pd_import_title_from_text (const char *text);

/* Items of a whole-list tool: an array of objects whose text is the first
 * string member of @text_members and whose status is "status".  NULL if the
 * array is not such a list (any element of another shape refuses it all:
 * an unrecognised shape gives no plan rather than a wrong one). */
GPtrArray   *_pd_import_items_from_array (JsonArray          *array,
                                          const char * const *text_members,
                                          const char         *id_member);
/* _pd_import_items_from_array() on an array's span in a checked line. */
GPtrArray   *_pd_import_items_from_span  (PdJsonSpan          array,
                                          const char * const *text_members,
                                          const char         *id_member);
/* The two above, keeping at most PD_IMPORT_MAX_ITEMS items: the rest of the
 * list is still checked for its shape, and counted in *@n_hidden (nullable)
 * without being built. */
GPtrArray   *_pd_import_items_from_array_cut (JsonArray          *array,
                                              const char * const *text_members,
                                              const char         *id_member,
                                              guint              *n_hidden);
GPtrArray   *_pd_import_items_from_span_cut  (PdJsonSpan          array,
                                              const char * const *text_members,
                                              const char         *id_member,
                                              guint              *n_hidden);
/* _pd_import_items_from_span_cut() on the rows pd_json_check_spans() found
 * of the array's elements (all of them: its table not cut): each row the
 * element, its @n_text text members, its status, and its id (@has_id). */
GPtrArray   *_pd_import_items_from_rows      (const PdJsonSpan   *rows,
                                              guint               n_rows,
                                              guint               row_size,
                                              guint               n_text,
                                              gboolean            has_id,
                                              guint              *n_hidden);

/* A full list as one plan call gave it: the items kept and the count of
 * those cut (see above).  What a reader holds between reading a call and
 * applying it (a call waiting for its result, a message replayed later). */
typedef struct
{
  GPtrArray *items;     /* PdChecklistItem */
  guint      n_hidden;
} PdImportList;

PdImportList *_pd_import_list_new     (GPtrArray          *items,
                                       guint               n_hidden);
void          _pd_import_list_free    (PdImportList       *self);
/* Applies a copy of @self (or @self's items, with @take) to @checklist. */
void          _pd_import_list_apply   (PdImportList       *self,
                                       PdChecklist        *checklist,
                                       PdChecklistOrigin   origin,
                                       gboolean            take);

/* The text of a tool result: a string, or the text parts of an array of
 * content blocks, joined.  NULL when there is none. */
char        *_pd_import_result_text   (JsonNode    *content);

/* Whether any of @needles occurs in the line (a cheap prefilter before
 * parsing). */
gboolean     _pd_import_line_has_any  (const char         *line,
                                       gsize               length,
                                       const char * const *needles);

/* A member found by its key or value alone, as the prefilter finds it, then
 * checked: JSON allows blanks around the colon, and some tools write them
 * ("type": "user").  @from is where the needle first occurs, its later
 * occurrences tried too.  The first gives just after the opening quote of
 * the string value of member @key (quoted, "\"timestamp\""), or NULL; the
 * second whether string @value (quoted) is the value of member @key. */
const char  *_pd_import_string_of_key  (const char *from,
                                        const char *end,
                                        const char *key);
gboolean     _pd_import_key_then_value (const char *line,
                                        const char *from,
                                        const char *end,
                                        const char *key,
                                        const char *value);

/* Several needles searched in one pass over a line (pd-needles.c): the
 * prefilter's hot path, instead of one memmem per needle. */
#define PD_NEEDLES_MAX 32

typedef struct _PdNeedles PdNeedles;

/* A needle, and how it is looked for: by the three of its bytes from
 * @window (rare ones in the lines searched make the scan fast), in one of
 * eight buckets (needles sharing a bucket are compared whenever one's
 * window may be there: put the rarest together). */
typedef struct
{
  const char *text;
  guint8      window;
  guint8      bucket;
} PdNeedle;

PdNeedles   *_pd_needles_new          (const char * const *needles);
PdNeedles   *_pd_needles_new_chosen   (const PdNeedle     *needles);
void         _pd_needles_free         (PdNeedles          *self);
/* Bit i set: needles[i] occurs in the line.  @first (nullable, an array of
 * PD_NEEDLES_MAX) gets where each found needle first occurs. */
guint32      _pd_needles_scan         (const PdNeedles    *self,
                                       const char         *line,
                                       gsize               length,
                                       const char        **first);

/* Long transcripts (seed 001, "Long transcripts"): a first read of a file
 * over the threshold scans backwards from its end, at most the bound, for
 * the newest full list that applies, and replays forward from there. */
#define PD_IMPORT_TAIL_THRESHOLD ((goffset) 64 * 1024 * 1024)
#define PD_IMPORT_TAIL_BOUND     ((goffset) 64 * 1024 * 1024)
/* Of the head of a tail-read file, what is read for the session's facts
 * (folder, title, first time). */
#define PD_IMPORT_TAIL_HEAD      ((goffset) 1024 * 1024)

goffset      _pd_import_get_tail_threshold (void);
goffset      _pd_import_get_tail_bound     (void);
/* On a reader's first update only (*@tail_done, then set): the size of
 * the transcript at @path when it is read from its end, a first read (from
 * @offset 0) of a file over the threshold; else 0. */
goffset      _pd_import_first_tail_size    (gboolean     *tail_done,
                                            goffset       offset,
                                            const char   *path);
/* The same for a file whose @size is known (the open that looked at it). */
goffset      _pd_import_first_tail_size_of (gboolean     *tail_done,
                                            goffset       offset,
                                            goffset       size);
/* For tests, which cannot write files of many MB: lower limits (0, 0 puts
 * the defaults back).  Not thread-safe: set before reading. */
void         _pd_import_set_tail_limits    (goffset threshold,
                                            goffset bound);

/* Recognising formats from the content (the first lines, or the header). */
typedef enum
{
  PD_IMPORT_FORMAT_UNKNOWN,
  PD_IMPORT_FORMAT_CLAUDE,
  PD_IMPORT_FORMAT_CODEX,
  PD_IMPORT_FORMAT_QWEN,
  PD_IMPORT_FORMAT_GEMINI,        /* JSON lines, v0.39 and later */
  PD_IMPORT_FORMAT_GEMINI_JSON,   /* one JSON document per session, before */
  PD_IMPORT_FORMAT_CLINE,         /* a Cline / Roo Code / Kilo Code task's ui_messages.json */
} PdImportFormat;

/* A whole-JSON-document transcript among an agent's files, by its name and
 * folder: Gemini CLI's chats/session-*.json, and the Cline family's
 * tasks/<id>/ui_messages.json.  The index and the scanner
 * take these beside *.jsonl files; _pd_import_sniff_jsonl() tells them. */
gboolean       _pd_import_is_document_name     (const char *dir,
                                                const char *name);

/* The reader's format name of a sniffed format (as
 * pd_transcript_reader_new_for_format() takes it); NULL for UNKNOWN. */
const char    *_pd_import_format_name          (PdImportFormat format);

/* The format of a JSON lines file from its first lines; for Claude also the
 * session it belongs to (subagent files name their parent's). */
PdImportFormat _pd_import_sniff_jsonl          (const char  *path,
                                                char       **session_id,
                                                GError     **error);
/* The same, keeping the file open: *@opened is the reader that looked,
 * rewound to the start, for the transcript's reader to read the file with
 * (pd_jsonl_reader_rewind()); NULL for whole documents and on an error. */
PdImportFormat _pd_import_sniff_jsonl_open     (const char      *path,
                                                char           **session_id,
                                                PdJsonlReader  **opened,
                                                GError         **error);
gboolean       _pd_import_is_sqlite            (const char  *path);
/* A whole small file (an OpenCode part), opened as transcripts are
 * (_pd_jsonl_open: a regular file only, never waiting), at most
 * @max_size bytes: a larger one is G_IO_ERROR_MESSAGE_TOO_LARGE, *@length
 * its size (at least what was read of it), none of it kept. */
gboolean       _pd_import_read_file            (const char  *path,
                                                gsize        max_size,
                                                char       **contents,
                                                gsize       *length,
                                                GError     **error);
gboolean       _pd_import_is_opencode_storage  (const char  *dir);
gboolean       _pd_import_is_storage_link      (const char  *storage,
                                                GPtrArray   *skipped);
GPtrArray     *_pd_import_list_beneath         (const char  *root,
                                                const char  *rel,
                                                const char  *suffix,
                                                GPtrArray   *skipped,
                                                GError     **error);
gboolean       _pd_import_read_file_beneath    (const char  *root,
                                                const char  *rel,
                                                gsize        max_size,
                                                char       **contents,
                                                gsize       *length,
                                                GError     **error);
gboolean       _pd_import_is_opencode_db_name  (const char  *name);
char          *_pd_import_safe_head            (const char  *raw,
                                                gsize        max,
                                                gsize       *left_out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdImportList, _pd_import_list_free)

G_END_DECLS
