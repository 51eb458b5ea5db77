/* pd-checklist.h: the checklist of an imported session, in two sections.
 *
 * The agent's items come first, replaced wholesale by the readers as they
 * replay the transcript; the user's own items follow.  The two never
 * interfere: replaying the agent's plan never touches the user's items, and
 * the user's ticks on agent items are overrides kept beside the agent's
 * status, keyed by pd_checklist_item_key() (a hash of the item's text and
 * its occurrence), so the text itself never has to be stored.
 *
 * Privacy (seed 001): agent item text lives in memory only.  What
 * pd_checklist_annotations_to_json() returns, and so what may be stored,
 * holds override keys and the user's own items, never agent text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-json-writer.h"

G_BEGIN_DECLS

typedef enum
{
  PD_CHECKLIST_STATUS_PENDING,
  PD_CHECKLIST_STATUS_IN_PROGRESS,
  PD_CHECKLIST_STATUS_COMPLETED,
  PD_CHECKLIST_STATUS_CANCELLED,
} PdChecklistStatus;

/* Where the agent's section came from.  NONE: no full list was seen, so
 * there is no agent plan (steps without a full list before them give none). */
typedef enum
{
  PD_CHECKLIST_ORIGIN_NONE,
  PD_CHECKLIST_ORIGIN_TODO_LIST,       /* Claude Code TodoWrite */
  PD_CHECKLIST_ORIGIN_CLAUDE_TASKS,    /* Claude Code TaskCreate/TaskUpdate/TaskList */
  PD_CHECKLIST_ORIGIN_DESKTOP_PLAN,    /* Claude desktop mcp__ccd_turn__update_plan */
  PD_CHECKLIST_ORIGIN_CODEX_PLAN,      /* Codex update_plan */
  PD_CHECKLIST_ORIGIN_OPENCODE_TODOS,  /* OpenCode todowrite */
  PD_CHECKLIST_ORIGIN_USER,            /* the user's own items */
  PD_CHECKLIST_ORIGIN_QWEN_TODOS,      /* Qwen Code todo_write */
  PD_CHECKLIST_ORIGIN_GEMINI_TODOS,    /* Gemini CLI write_todos */
  PD_CHECKLIST_ORIGIN_CLINE_PROGRESS,  /* Cline task_progress checklists */
  PD_CHECKLIST_ORIGIN_ROO_TODOS,       /* Roo Code updateTodoList */
  PD_CHECKLIST_ORIGIN_KILO_TODOS,      /* the Kilo Code extension's updateTodoList */
  PD_CHECKLIST_ORIGIN_KILO_CLI_TODOS,  /* Kilo Code's CLI todowrite */
} PdChecklistOrigin;

const char *pd_checklist_status_to_string (PdChecklistStatus  status);
/* Unknown or missing statuses read as pending (seed 001, "No guessing").
 * Returns FALSE for "deleted", which is not a checklist status. */
gboolean    pd_checklist_status_parse     (const char        *str,
                                           PdChecklistStatus *status);
const char *pd_checklist_origin_to_string (PdChecklistOrigin  origin);

#define PD_TYPE_CHECKLIST_ITEM (pd_checklist_item_get_type ())

typedef struct
{
  char              *text;
  PdChecklistStatus  status;     /* the agent's status (or the user's, for user items) */
  char              *source_id;  /* (nullable) the agent's id: a task id, an OpenCode todo id */
  PdChecklistOrigin  origin;
  char              *key;        /* pd_checklist_item_key() of text and occurrence */
} PdChecklistItem;

GType            pd_checklist_item_get_type (void) G_GNUC_CONST;
PdChecklistItem *pd_checklist_item_new      (const char        *text,
                                             PdChecklistStatus  status,
                                             const char        *source_id);
PdChecklistItem *pd_checklist_item_copy     (const PdChecklistItem *self);
void             pd_checklist_item_free     (PdChecklistItem       *self);
/* For the readers that read an item's text in place (pd-import-util.c),
 * and the tests: texts whose redaction was copied from the last seen. */
char            *_pd_checklist_memo_lookup_json     (const char        *string,
                                                     gsize              length);
void             _pd_checklist_memo_store_json      (const char        *string,
                                                     gsize              length,
                                                     const char        *redacted);
PdChecklistItem *_pd_checklist_item_new_redacted    (char              *text,
                                                     PdChecklistStatus  status,
                                                     const char        *source_id);
guint64          _pd_checklist_get_redact_memo_hits (void);

char            *pd_checklist_item_key      (const char *text,
                                             guint       occurrence);

#define PD_TYPE_CHECKLIST (pd_checklist_get_type ())
G_DECLARE_FINAL_TYPE (PdChecklist, pd_checklist, PD, CHECKLIST, GObject)

PdChecklist       *pd_checklist_new                 (void);
/* Both sections and the overrides, as they are now (keys and version kept). */
PdChecklist       *pd_checklist_copy                (PdChecklist       *self);

/* The agent's section. */
PdChecklistOrigin  pd_checklist_get_origin          (PdChecklist       *self);
guint              pd_checklist_get_n_agent_items   (PdChecklist       *self);
const PdChecklistItem *pd_checklist_get_agent_item  (PdChecklist       *self,
                                                     guint              position);
/* Takes @items (PdChecklistItem, an owning array) and gives each its key. */
void               pd_checklist_replace_agent_items (PdChecklist       *self,
                                                     PdChecklistOrigin  origin,
                                                     GPtrArray         *items);
/* pd_checklist_replace_agent_items() for a list cut where it was read: the
 * agent's list held @n_hidden more items after @items, counted but never
 * built (a list of a million items is a file's attack, not a plan). */
void               pd_checklist_replace_agent_items_cut (PdChecklist   *self,
                                                     PdChecklistOrigin  origin,
                                                     GPtrArray         *items,
                                                     guint              n_hidden);
/* How many items of the agent's last list are not in the checklist (0: it
 * holds the whole list). */
guint              pd_checklist_get_n_hidden_agent_items (PdChecklist  *self);
void               pd_checklist_clear_agent_items   (PdChecklist       *self);
guint              pd_checklist_get_version         (PdChecklist       *self);

/* The user's overrides of agent items.  Setting the agent's own state again
 * removes the override.  Overrides of keys no longer present are kept (the
 * agent may bring the item back) but have no effect. */
void               pd_checklist_set_checked         (PdChecklist       *self,
                                                     guint              position,
                                                     gboolean           checked);
gboolean           pd_checklist_get_override        (PdChecklist       *self,
                                                     guint              position,
                                                     gboolean          *checked);
PdChecklistStatus  pd_checklist_get_effective_status (PdChecklist      *self,
                                                      guint             position);
guint              pd_checklist_get_n_overrides     (PdChecklist       *self);

/* The user's section. */
guint              pd_checklist_get_n_user_items    (PdChecklist       *self);
const PdChecklistItem *pd_checklist_get_user_item   (PdChecklist       *self,
                                                     guint              position);
void               pd_checklist_add_user_item       (PdChecklist       *self,
                                                     const char        *text);
void               pd_checklist_set_user_item_done  (PdChecklist       *self,
                                                     guint              position,
                                                     gboolean           done);
void               pd_checklist_remove_user_item    (PdChecklist       *self,
                                                     guint              position);

/* Both sections, as the pill shows them. */
void               pd_checklist_count               (PdChecklist       *self,
                                                     guint             *done,
                                                     guint             *total,
                                                     guint             *in_progress);

/* What may be stored: {"planOverrides": {key: bool}, "userItems": [{text, done}]}. */
JsonNode          *pd_checklist_annotations_to_json (PdChecklist       *self);
gboolean           pd_checklist_load_annotations    (PdChecklist       *self,
                                                     JsonNode          *node,
                                                     GError           **error);

/* In memory only: for `plandeck-agent import --json` and the UI. */
JsonNode          *pd_checklist_to_json             (PdChecklist       *self);
void               pd_checklist_write_json          (PdChecklist       *self,
                                                     PdJsonWriter      *writer,
                                                     const char        *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdChecklistItem, pd_checklist_item_free)

G_END_DECLS
