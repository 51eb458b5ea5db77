/* pd-transcript-pages-build-private.h: what the pages hold while they are
 * built and once sealed, shared by the files of PdTranscriptPages
 * (pd-transcript-pages.c builds and reads, pd-transcript-pages-messages.c
 * writes the conversation and keeps a long one's part).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-import-private.h"
#include "pd-transcript-pages-private.h"

G_BEGIN_DECLS

/* Bounds on what is kept of one text, in bytes: the pages show a tool's
 * output folded, and a transcript of many MB must not be held whole. */
#define MESSAGE_TEXT_MAX   (64 * 1024)
#define THINKING_TEXT_MAX  (16 * 1024)
#define TOOL_TEXT_MAX      PD_TRANSCRIPT_PAGES_TOOL_TEXT_MAX
/* Room kept at the end of a cut call's arguments for "… (cut, N bytes)". */
#define CUT_NOTE_ROOM      40
/* The tool calls of one message at most; more go on in the next. */
#define MESSAGE_CALLS_MAX  1000
/* Subagents of subagents, nested at most this deep (and never in a loop). */
#define SUBAGENT_MAX_DEPTH 8

typedef struct _Call Call;

typedef struct
{
  const char *role;          /* interned */
  GString   *content;        /* NULL once written into the sealed pages' text */
  gsize      content_cut;
  GString   *thinking;       /* (nullable) */
  gsize      thinking_cut;
  GPtrArray *calls;          /* (nullable) Call, owned by the pages */
  char      *tool_call_id;   /* role "tool" */
  char      *name;           /* role "tool": the tool's */
  gboolean   is_error;
  gboolean   notice;         /* Plandeck's own (the rest left out): record_only */
  char      *group;
  gint64     time;
  guint64    index;          /* in the session's own conversation, from 0 */
  gsize      window_cost;    /* a part's: what it counts for it, once the next began */
} Message;

struct _Call
{
  char     *id;
  char     *name;
  char     *arguments;      /* NULL in the Events' pages */
  gsize     arguments_len;
  gsize     arguments_cut;
  gint64    time;
  gboolean  answered;
  gboolean  failed;
  gint64    result_time;
  gsize     result_bytes;
  /* A call that starts a subagent. */
  gboolean  subagent;
  char     *sub_conversation;   /* known, or found by prompt at the end */
  char     *sub_prompt;
  char     *agent_type;
  char     *description;
  /* (nullable) the plan version this call left (the last call when a plan
   * update was applied), shown at the call as a card in the Transcript:
   * the pages' own, or the call's (@plan_owned) in a part of a long
   * transcript, which keeps no versions. */
  gpointer  plan;
  gboolean  plan_owned;
};

typedef struct
{
  char      *key;
  GPtrArray *messages;       /* Message */
  char      *first_prompt;   /* the first user text: a subagent's task */
  gint64     first_time;
  gboolean   linked;
} Conversation;

typedef enum
{
  ENTRY_CALL,
  ENTRY_RESULT,
  ENTRY_VERSION,
} EntryKind;

/* The timeline, in the order things happened (readers call in time order). */
typedef struct
{
  EntryKind kind;
  gpointer  ref;     /* Call or Version */
  goffset   offset;  /* where its line starts, in pages numbered by offset */
} Entry;

/* The items of a plan card in the Transcript at most (a card, not the
 * checklist): a part of a long transcript copies no more for each call. */
#define PD_TRANSCRIPT_PAGES_CARD_ITEMS 100

typedef struct
{
  PdChecklistOrigin  origin;
  GPtrArray         *items;   /* PdChecklistItem */
  guint              left_out; /* items not copied into @items (a part's card) */
  gint64             time;
  gint64             number;
} Version;

typedef struct
{
  const char *type;
  char       *tool;
  gint64      time;
  char       *data;    /* JSON object text */
  gint64      seq;     /* in pages numbered by offset; else its index + 1 */
  goffset     offset;  /* where its line starts, in pages numbered by offset */
} Event;

struct _PdTranscriptPages
{
  GObject      parent_instance;

  /* While being built. */
  GHashTable  *conversations;        /* key ("" for the session's) → Conversation */
  GPtrArray   *conversation_order;   /* Conversation, not owned */
  GHashTable  *calls;                /* id → Call, not owned */
  GPtrArray   *call_list;            /* Call, owned */
  GArray      *log;                  /* Entry */

  /* The History's pages: versions only, the newest kept. */
  gboolean     history_only;
  guint        n_versions;           /* all, kept or not */
  /* The Events' pages: the timeline only, no message or call text. */
  gboolean     events_only;
  /* A part of a long transcript's timeline, its events numbered by where
   * their lines start (PD_TRANSCRIPT_PAGES_SEQ_SHIFT), in the order read. */
  gboolean     by_offset;
  goffset      line_offset;          /* the line being read */
  goffset      seq_line;             /* sealing: the line numbered last */
  guint        seq_index;            /* and how many of its events */
  /* The Transcript's part of a long session: of the session's own
   * conversation the messages window_first.. (-1: the newest) only,
   * window_max of them; with a sink, every message handed to it in order
   * once it is final, none kept (an export written as it is read). */
  gboolean     windowed;
  gint64       window_first;
  guint        window_max;
  guint64      n_main;               /* the conversation's messages met */
  guint64      kept_first;           /* sealed: the first one kept */
  gsize        window_cost;          /* what the kept messages cost (their Message's) */
  PdTranscriptPagesSink sink;
  gpointer     sink_data;
  guint64      n_sunk;
  PdTranscriptPagesVersionSink version_sink;
  gpointer     version_sink_data;
  JsonNode    *version_marks;        /* (nullable) the annotations */

  /* Followed (pd-import-follow.c): the building pages and their
   * snapshots say which pages they are, so a reader that read a snapshot
   * asks for what came after it only. */
  guint64      lineage;
  /* Built again after more is read (followed): the messages' texts stay
   * after they are written, which otherwise are let go at once. */
  gboolean     keep_texts;

  /* Whole pages: what their items cost, each with its overhead
   * (pd-transcript-pages-budget.c); past it the rest left out and counted,
   * said by a message where it was cut. */
  PdImportBudget budget;
  gboolean     over_budget;
  guint64      left_out_items;
  gsize        left_out_bytes;
  Message     *cut_notice;
  /* Sealed. */
  gboolean     sealed;
  char        *messages_json;
  GArray      *message_starts;       /* gsize: where each message starts in it */
  guint        n_messages;
  GPtrArray   *versions;             /* Version, the newest n_versions */
  GPtrArray   *plans;                /* PdArtifactPlan */
  GPtrArray   *events;               /* Event */
  GStrv        resume_argv;
  char        *workdir;
};

void  _pd_transcript_pages_call_free      (Call              *call);
/* A new message of @conversation, after its last. */
Message *_pd_transcript_pages_message_add (PdTranscriptPages *self,
                                           Conversation      *conversation,
                                           const char        *role,
                                           const char        *group,
                                           gint64             time);

/* pd-transcript-pages-budget.c.  What an item kept costs beside its text
 * (the text counts twice: held, then written as JSON): a message (its
 * structure, its place, its JSON's members), a call (its structure, its
 * id in the table, its two events and their data), an event alone. */
#define MESSAGE_COST 256
#define CALL_COST    512
#define EVENT_COST   128
void     _pd_transcript_pages_budget_init (PdTranscriptPages *self);
/* Whether an item of @cost may be kept; FALSE past the budget (then
 * counted as left out with its @bytes of text, the first one leaving a
 * notice in its place). */
gboolean _pd_transcript_pages_take        (PdTranscriptPages *self,
                                           gsize              cost,
                                           gsize              bytes);
/* The notice's text, once what was left out is known. */
void     _pd_transcript_pages_budget_seal (PdTranscriptPages *self);
/* The conversation of @key (NULL: the session's own), made when new. */
Conversation *_pd_transcript_pages_conversation_get (PdTranscriptPages *self,
                                                     const char        *key);
/* The conversation as JSON text (subagents nested), n_messages set, and
 * where each message of it starts (message_starts). */
char *_pd_transcript_pages_build_messages (PdTranscriptPages *self);
/* A part's pages: after a message of the session's own conversation is
 * added, lets go of those outside the part (never the last one, which may
 * still grow); @final at the end, the last one too. */
void  _pd_transcript_pages_window_trim    (PdTranscriptPages *self,
                                           gboolean           final);

G_END_DECLS
