/* pd-checklist.c: the checklist of an imported session, in two sections.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "pd-checklist.h"
#include "pd-json-util.h"
#include "pd-json-writer.h"
#include "pd-redact.h"

#define KEY_PREFIX_LEN 32  /* hex digits of SHA-256 kept in a key */
#define MAX_USER_ITEMS 1000
#define MAX_OVERRIDES  10000
#define SMALL_LIST     32     /* items matched by looking along the list */

struct _PdChecklist
{
  GObject            parent_instance;

  PdChecklistOrigin  origin;
  GPtrArray         *agent_items;  /* PdChecklistItem */
  guint              n_hidden;     /* items of the agent's list not kept */
  GPtrArray         *user_items;   /* PdChecklistItem */
  GHashTable        *overrides;    /* key → GINT_TO_POINTER (checked + 1) */
  guint              version;
};

G_DEFINE_FINAL_TYPE (PdChecklist, pd_checklist, G_TYPE_OBJECT)
G_DEFINE_BOXED_TYPE (PdChecklistItem, pd_checklist_item, pd_checklist_item_copy, pd_checklist_item_free)

static const char * const status_names[] = { "pending", "in_progress", "completed", "cancelled" };
static const char * const origin_names[] = {
  "none", "todo_list", "claude_tasks", "desktop_plan", "codex_plan", "opencode_todos", "user",
  "qwen_todos", "gemini_todos", "cline_progress", "roo_todos",
  "kilo_todos", "kilo_cli_todos",
};

const char *
pd_checklist_status_to_string (PdChecklistStatus status)
{
  if ((guint) status >= G_N_ELEMENTS (status_names))
    return "pending";
  return status_names[status];
}

gboolean
pd_checklist_status_parse (const char        *str,
                           PdChecklistStatus *status)
{
  *status = PD_CHECKLIST_STATUS_PENDING;
  if (str == NULL)
    return TRUE;
  if (strcmp (str, "deleted") == 0)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (status_names); i++)
    if (strcmp (str, status_names[i]) == 0)
      {
        *status = (PdChecklistStatus) i;
        return TRUE;
      }
  /* Spellings of the same states seen across the tools. */
  if (strcmp (str, "in-progress") == 0 || strcmp (str, "inProgress") == 0 || strcmp (str, "InProgress") == 0)
    *status = PD_CHECKLIST_STATUS_IN_PROGRESS;
  else if (strcmp (str, "Completed") == 0 || strcmp (str, "done") == 0)
    *status = PD_CHECKLIST_STATUS_COMPLETED;
  else if (strcmp (str, "canceled") == 0)
    *status = PD_CHECKLIST_STATUS_CANCELLED;
  /* Anything else stays pending. */
  return TRUE;
}

const char *
pd_checklist_origin_to_string (PdChecklistOrigin origin)
{
  if ((guint) origin >= G_N_ELEMENTS (origin_names))
    return "none";
  return origin_names[origin];
}

/* ---------------------------------------------------------------------- */

/* The texts redacted last, with what pd_redact() made of each.  An agent
 * writes its whole to-do list at every change, so an import redacts the
 * same few item texts again and again (on the real Claude Code corpus
 * about 4 300 instructions an item, 12 % of an import's): a redacted text
 * depends on the text alone, and one seen before is copied.  Shared by the
 * import's workers under a lock (held for a look-up and a copy); short
 * texts only, so it stays small (at most 128 of 512 bytes and their
 * redactions).  A reader that reads an item's text in place keeps its JSON
 * string there too (MEMO_JSON: the string as written, quotes and escapes,
 * to the text unescaped, cleaned and redacted), never mistaken for a text
 * of the same bytes. */
#define MEMO_SLOTS    128
#define MEMO_MAX_TEXT 512

enum { MEMO_TEXT, MEMO_JSON };

typedef struct
{
  guint32  hash;
  guint32  kind;
  gsize    length;
  char    *key;
  char    *redacted;
} MemoSlot;

static MemoSlot memo_slots[MEMO_SLOTS];
static GMutex   memo_lock;
static guint64  memo_hits;

static guint32
memo_hash (guint       kind,
           const char *key,
           gsize       length)
{
  guint32 h = 2166136261u ^ kind;

  for (gsize i = 0; i < length; i++)
    h = (h ^ (guchar) key[i]) * 16777619u;
  return h;
}

/* A copy of what @key of @kind was redacted to, or %NULL. */
static char *
memo_lookup (guint       kind,
             const char *key,
             gsize       length)
{
  guint32 hash = memo_hash (kind, key, length);
  MemoSlot *slot = &memo_slots[hash % MEMO_SLOTS];
  char *redacted = NULL;

  g_mutex_lock (&memo_lock);
  if (slot->key != NULL && slot->hash == hash && slot->kind == kind && slot->length == length
      && memcmp (slot->key, key, length) == 0)
    {
      redacted = g_strdup (slot->redacted);
      memo_hits++;
    }
  g_mutex_unlock (&memo_lock);
  return redacted;
}

static void
memo_store (guint       kind,
            const char *key,
            gsize       length,
            const char *redacted)
{
  guint32 hash = memo_hash (kind, key, length);
  MemoSlot *slot = &memo_slots[hash % MEMO_SLOTS];
  char *old_key, *old_redacted;
  char *new_key = g_strndup (key, length), *new_redacted = g_strdup (redacted);

  g_mutex_lock (&memo_lock);
  old_key = slot->key;
  old_redacted = slot->redacted;
  slot->hash = hash;
  slot->kind = kind;
  slot->length = length;
  slot->key = new_key;
  slot->redacted = new_redacted;
  g_mutex_unlock (&memo_lock);
  g_free (old_key);
  g_free (old_redacted);
}

static char *
redact_memoized (const char *text)
{
  gsize length = strlen (text);
  char *redacted;

  if (length > MEMO_MAX_TEXT)
    return pd_redact (text, NULL);
  if ((redacted = memo_lookup (MEMO_TEXT, text, length)) != NULL)
    return redacted;
  redacted = pd_redact (text, NULL);
  memo_store (MEMO_TEXT, text, length, redacted);
  return redacted;
}

/**
 * _pd_checklist_memo_lookup_json:
 * @string: an item's text as its JSON string, quotes and escapes
 * @length: its length
 *
 * Returns: (transfer full) (nullable): the text that string gave when
 *   _pd_checklist_memo_store_json() last kept it (unescaped, cleaned and
 *   redacted), or %NULL
 */
char *
_pd_checklist_memo_lookup_json (const char *string,
                                gsize       length)
{
  if (length > MEMO_MAX_TEXT)
    return NULL;
  return memo_lookup (MEMO_JSON, string, length);
}

/* Keeps what @string gave: @redacted, as an item's text made by
 * pd_checklist_item_new() of its unescaped and cleaned text has it. */
void
_pd_checklist_memo_store_json (const char *string,
                               gsize       length,
                               const char *redacted)
{
  if (length <= MEMO_MAX_TEXT)
    memo_store (MEMO_JSON, string, length, redacted);
}

/* For the tests: how many texts were copied from the memo. */
guint64
_pd_checklist_get_redact_memo_hits (void)
{
  guint64 hits;

  g_mutex_lock (&memo_lock);
  hits = memo_hits;
  g_mutex_unlock (&memo_lock);
  return hits;
}

/* An item whose @text (transfer full) is redacted already. */
PdChecklistItem *
_pd_checklist_item_new_redacted (char              *text,
                                 PdChecklistStatus  status,
                                 const char        *source_id)
{
  PdChecklistItem *self = g_new0 (PdChecklistItem, 1);

  self->text = text;
  self->status = status;
  self->source_id = g_strdup (source_id);
  return self;
}

PdChecklistItem *
pd_checklist_item_new (const char        *text,
                       PdChecklistStatus  status,
                       const char        *source_id)
{
  PdChecklistItem *self = g_new0 (PdChecklistItem, 1);

  /* An agent's item is text of the model's: redacted as a plan's steps
   * are when stored, so the Now page, sessions show and export and serve
   * mask it (tried as an attacker would: "set MY_PASSWORD=…" was shown
   * as written while the session's title was masked). */
  self->text = redact_memoized (text ? text : "");
  self->status = status;
  self->source_id = g_strdup (source_id);
  return self;
}

PdChecklistItem *
pd_checklist_item_copy (const PdChecklistItem *self)
{
  PdChecklistItem *copy = g_memdup2 (self, sizeof *self);

  copy->text = g_strdup (self->text);
  copy->source_id = g_strdup (self->source_id);
  copy->key = g_strdup (self->key);
  return copy;
}

void
pd_checklist_item_free (PdChecklistItem *self)
{
  if (self == NULL)
    return;
  g_free (self->text);
  g_free (self->source_id);
  g_free (self->key);
  g_free (self);
}

/**
 * pd_checklist_item_key:
 * @text: the item's text
 * @occurrence: 0 for the first item with this text, 1 for the second, …
 *
 * The identity an override is stored under: a hash, so the text itself is
 * never stored.  A reworded item gets a new key.
 */
char *
pd_checklist_item_key (const char *text,
                       guint       occurrence)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  char occ[16];

  g_snprintf (occ, sizeof occ, "%u", occurrence);
  g_checksum_update (checksum, (const guchar *) "plandeck-item\n", -1);
  g_checksum_update (checksum, (const guchar *) occ, -1);
  g_checksum_update (checksum, (const guchar *) "\n", 1);
  g_checksum_update (checksum, (const guchar *) (text ? text : ""), -1);
  return g_strndup (g_checksum_get_string (checksum), KEY_PREFIX_LEN);
}

/* ---------------------------------------------------------------------- */

static void
pd_checklist_finalize (GObject *object)
{
  PdChecklist *self = PD_CHECKLIST (object);

  g_clear_pointer (&self->agent_items, g_ptr_array_unref);
  g_clear_pointer (&self->user_items, g_ptr_array_unref);
  g_clear_pointer (&self->overrides, g_hash_table_unref);

  G_OBJECT_CLASS (pd_checklist_parent_class)->finalize (object);
}

static void
pd_checklist_class_init (PdChecklistClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_checklist_finalize;
}

static void
pd_checklist_init (PdChecklist *self)
{
  self->agent_items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
  self->user_items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
  self->overrides = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

PdChecklist *
pd_checklist_new (void)
{
  return g_object_new (PD_TYPE_CHECKLIST, NULL);
}

PdChecklist *
pd_checklist_copy (PdChecklist *self)
{
  PdChecklist *copy;
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (PD_IS_CHECKLIST (self), NULL);

  copy = pd_checklist_new ();
  copy->origin = self->origin;
  copy->n_hidden = self->n_hidden;
  copy->version = self->version;
  for (guint i = 0; i < self->agent_items->len; i++)
    g_ptr_array_add (copy->agent_items, pd_checklist_item_copy (g_ptr_array_index (self->agent_items, i)));
  for (guint i = 0; i < self->user_items->len; i++)
    g_ptr_array_add (copy->user_items, pd_checklist_item_copy (g_ptr_array_index (self->user_items, i)));
  g_hash_table_iter_init (&iter, self->overrides);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (copy->overrides, g_strdup (key), value);
  return copy;
}

PdChecklistOrigin
pd_checklist_get_origin (PdChecklist *self)
{
  g_return_val_if_fail (PD_IS_CHECKLIST (self), PD_CHECKLIST_ORIGIN_NONE);
  return self->origin;
}

guint
pd_checklist_get_n_agent_items (PdChecklist *self)
{
  g_return_val_if_fail (PD_IS_CHECKLIST (self), 0);
  return self->agent_items->len;
}

const PdChecklistItem *
pd_checklist_get_agent_item (PdChecklist *self,
                             guint        position)
{
  g_return_val_if_fail (PD_IS_CHECKLIST (self), NULL);
  if (position >= self->agent_items->len)
    return NULL;
  return g_ptr_array_index (self->agent_items, position);
}

guint
pd_checklist_get_version (PdChecklist *self)
{
  g_return_val_if_fail (PD_IS_CHECKLIST (self), 0);
  return self->version;
}

void
pd_checklist_replace_agent_items (PdChecklist       *self,
                                  PdChecklistOrigin  origin,
                                  GPtrArray         *items)
{
  pd_checklist_replace_agent_items_cut (self, origin, items, 0);
}

guint
pd_checklist_get_n_hidden_agent_items (PdChecklist *self)
{
  g_return_val_if_fail (PD_IS_CHECKLIST (self), 0);
  return self->n_hidden;
}

void
pd_checklist_replace_agent_items_cut (PdChecklist       *self,
                                      PdChecklistOrigin  origin,
                                      GPtrArray         *items,
                                      guint              n_hidden)
{
  g_autoptr(GHashTable) seen = NULL;
  g_autoptr(GHashTable) previous = NULL;

  g_return_if_fail (PD_IS_CHECKLIST (self));
  g_return_if_fail (items != NULL);
  g_return_if_fail (origin != PD_CHECKLIST_ORIGIN_USER);

  self->n_hidden = n_hidden;

  /* A list of a few items (a to-do list has about ten) is matched by
   * looking along it: the same keys as below, without two tables made and
   * freed for each of the thousands of replacements a replay makes. */
  if (items->len <= SMALL_LIST && self->agent_items->len <= SMALL_LIST)
    {
      for (guint i = 0; i < items->len; i++)
        {
          PdChecklistItem *item = g_ptr_array_index (items, i);
          const char *known = NULL;
          guint occurrence = 0;
          char *key;

          for (guint j = 0; j < i; j++)
            if (strcmp (((PdChecklistItem *) g_ptr_array_index (items, j))->text, item->text) == 0)
              occurrence++;
          for (guint j = 0; occurrence == 0 && known == NULL && j < self->agent_items->len; j++)
            {
              PdChecklistItem *old = g_ptr_array_index (self->agent_items, j);

              if (old->key != NULL && strcmp (old->text, item->text) == 0)
                known = old->key;
            }
          key = known ? g_strdup (known) : pd_checklist_item_key (item->text, occurrence);
          g_free (item->key);
          item->key = key;
          item->origin = origin;
        }
      g_ptr_array_unref (self->agent_items);
      self->agent_items = items;
      self->origin = origin;
      self->version++;
      return;
    }

  seen = g_hash_table_new (g_str_hash, g_str_equal);
  previous = g_hash_table_new (g_str_hash, g_str_equal);

  /* The keys of the items the list had (the first of each text): a replay
   * replaces the list thousands of times with mostly the same items, and
   * a key is a SHA-256. */
  for (guint i = 0; i < self->agent_items->len; i++)
    {
      PdChecklistItem *item = g_ptr_array_index (self->agent_items, i);

      if (item->key != NULL && !g_hash_table_contains (previous, item->text))
        g_hash_table_insert (previous, item->text, item->key);
    }

  for (guint i = 0; i < items->len; i++)
    {
      PdChecklistItem *item = g_ptr_array_index (items, i);
      guint occurrence = GPOINTER_TO_UINT (g_hash_table_lookup (seen, item->text));
      const char *known = occurrence == 0 ? g_hash_table_lookup (previous, item->text) : NULL;
      char *key = known ? g_strdup (known) : pd_checklist_item_key (item->text, occurrence);

      g_hash_table_insert (seen, item->text, GUINT_TO_POINTER (occurrence + 1));
      g_free (item->key);
      item->key = key;
      item->origin = origin;
    }

  g_ptr_array_unref (self->agent_items);
  self->agent_items = items;
  self->origin = origin;
  self->version++;
}

void
pd_checklist_clear_agent_items (PdChecklist *self)
{
  g_return_if_fail (PD_IS_CHECKLIST (self));

  if (self->origin == PD_CHECKLIST_ORIGIN_NONE && self->agent_items->len == 0 && self->n_hidden == 0)
    return;
  g_ptr_array_set_size (self->agent_items, 0);
  self->n_hidden = 0;
  self->origin = PD_CHECKLIST_ORIGIN_NONE;
  self->version++;
}

static gboolean
status_is_checked (PdChecklistStatus status)
{
  return status == PD_CHECKLIST_STATUS_COMPLETED;
}

void
pd_checklist_set_checked (PdChecklist *self,
                          guint        position,
                          gboolean     checked)
{
  const PdChecklistItem *item;

  g_return_if_fail (PD_IS_CHECKLIST (self));
  if (!(item = pd_checklist_get_agent_item (self, position)))
    return;

  checked = !!checked;
  if (checked == status_is_checked (item->status))
    g_hash_table_remove (self->overrides, item->key);
  else if (g_hash_table_size (self->overrides) < MAX_OVERRIDES
           || g_hash_table_contains (self->overrides, item->key))
    g_hash_table_insert (self->overrides, g_strdup (item->key), GINT_TO_POINTER (checked + 1));
}

gboolean
pd_checklist_get_override (PdChecklist *self,
                           guint        position,
                           gboolean    *checked)
{
  const PdChecklistItem *item;
  gpointer value;

  g_return_val_if_fail (PD_IS_CHECKLIST (self), FALSE);
  if (!(item = pd_checklist_get_agent_item (self, position)))
    return FALSE;
  if (!g_hash_table_lookup_extended (self->overrides, item->key, NULL, &value))
    return FALSE;
  /* An override equal to what the agent now says is moot. */
  if ((GPOINTER_TO_INT (value) - 1) == status_is_checked (item->status))
    return FALSE;
  if (checked)
    *checked = GPOINTER_TO_INT (value) - 1;
  return TRUE;
}

PdChecklistStatus
pd_checklist_get_effective_status (PdChecklist *self,
                                   guint        position)
{
  const PdChecklistItem *item = pd_checklist_get_agent_item (self, position);
  gboolean checked;

  if (item == NULL)
    return PD_CHECKLIST_STATUS_PENDING;
  if (pd_checklist_get_override (self, position, &checked))
    return checked ? PD_CHECKLIST_STATUS_COMPLETED : PD_CHECKLIST_STATUS_PENDING;
  return item->status;
}

guint
pd_checklist_get_n_overrides (PdChecklist *self)
{
  g_return_val_if_fail (PD_IS_CHECKLIST (self), 0);
  return g_hash_table_size (self->overrides);
}

guint
pd_checklist_get_n_user_items (PdChecklist *self)
{
  g_return_val_if_fail (PD_IS_CHECKLIST (self), 0);
  return self->user_items->len;
}

const PdChecklistItem *
pd_checklist_get_user_item (PdChecklist *self,
                            guint        position)
{
  g_return_val_if_fail (PD_IS_CHECKLIST (self), NULL);
  if (position >= self->user_items->len)
    return NULL;
  return g_ptr_array_index (self->user_items, position);
}

void
pd_checklist_add_user_item (PdChecklist *self,
                            const char  *text)
{
  PdChecklistItem *item;

  g_return_if_fail (PD_IS_CHECKLIST (self));
  g_return_if_fail (text != NULL);

  if (self->user_items->len >= MAX_USER_ITEMS)
    return;
  item = pd_checklist_item_new (text, PD_CHECKLIST_STATUS_PENDING, NULL);
  item->origin = PD_CHECKLIST_ORIGIN_USER;
  g_ptr_array_add (self->user_items, item);
}

void
pd_checklist_set_user_item_done (PdChecklist *self,
                                 guint        position,
                                 gboolean     done)
{
  PdChecklistItem *item;

  g_return_if_fail (PD_IS_CHECKLIST (self));
  if (position >= self->user_items->len)
    return;
  item = g_ptr_array_index (self->user_items, position);
  item->status = done ? PD_CHECKLIST_STATUS_COMPLETED : PD_CHECKLIST_STATUS_PENDING;
}

void
pd_checklist_remove_user_item (PdChecklist *self,
                               guint        position)
{
  g_return_if_fail (PD_IS_CHECKLIST (self));
  if (position < self->user_items->len)
    g_ptr_array_remove_index (self->user_items, position);
}

void
pd_checklist_count (PdChecklist *self,
                    guint       *done,
                    guint       *total,
                    guint       *in_progress)
{
  guint n_done = 0, n_total = 0, n_active = 0;

  g_return_if_fail (PD_IS_CHECKLIST (self));

  for (guint i = 0; i < self->agent_items->len; i++)
    {
      PdChecklistStatus status = pd_checklist_get_effective_status (self, i);

      /* A cancelled step is neither work left nor work done. */
      if (status == PD_CHECKLIST_STATUS_CANCELLED)
        continue;
      n_total++;
      n_done += status == PD_CHECKLIST_STATUS_COMPLETED;
      n_active += status == PD_CHECKLIST_STATUS_IN_PROGRESS;
    }
  for (guint i = 0; i < self->user_items->len; i++)
    {
      const PdChecklistItem *item = g_ptr_array_index (self->user_items, i);

      n_total++;
      n_done += item->status == PD_CHECKLIST_STATUS_COMPLETED;
    }

  if (done)
    *done = n_done;
  if (total)
    *total = n_total;
  if (in_progress)
    *in_progress = n_active;
}

/* ---------------------------------------------------------------------- */

JsonNode *
pd_checklist_annotations_to_json (PdChecklist *self)
{
  JsonObject *root = json_object_new ();
  JsonObject *overrides = json_object_new ();
  JsonArray *user = json_array_new ();
  g_autoptr(GList) keys = NULL;
  JsonNode *node;

  g_return_val_if_fail (PD_IS_CHECKLIST (self), NULL);

  /* Sorted, so the stored text does not depend on hash table order. */
  keys = g_list_sort (g_hash_table_get_keys (self->overrides), (GCompareFunc) strcmp);
  for (const GList *l = keys; l != NULL; l = l->next)
    json_object_set_boolean_member (overrides, l->data,
                                    GPOINTER_TO_INT (g_hash_table_lookup (self->overrides, l->data)) - 1);

  for (guint i = 0; i < self->user_items->len; i++)
    {
      const PdChecklistItem *item = g_ptr_array_index (self->user_items, i);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "text", item->text);
      json_object_set_boolean_member (object, "done", item->status == PD_CHECKLIST_STATUS_COMPLETED);
      json_array_add_object_element (user, object);
    }

  json_object_set_object_member (root, "planOverrides", overrides);
  json_object_set_array_member (root, "userItems", user);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, root);
  return node;
}

static gboolean
is_override_key (const char *key)
{
  if (strlen (key) != KEY_PREFIX_LEN)
    return FALSE;
  for (const char *p = key; *p; p++)
    if (!g_ascii_isxdigit (*p) || g_ascii_isupper (*p))
      return FALSE;
  return TRUE;
}

/**
 * pd_checklist_load_annotations:
 * @node: what pd_checklist_annotations_to_json() gave (possibly stored and
 *   read back)
 *
 * Replaces the overrides and the user's items.  Members that are missing
 * leave their part unchanged; entries of the wrong shape are skipped.
 */
gboolean
pd_checklist_load_annotations (PdChecklist  *self,
                               JsonNode     *node,
                               GError      **error)
{
  JsonObject *root;
  JsonNode *member;

  g_return_val_if_fail (PD_IS_CHECKLIST (self), FALSE);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "checklist annotations are not a JSON object");
      return FALSE;
    }
  root = json_node_get_object (node);

  if ((member = json_object_get_member (root, "planOverrides")) && JSON_NODE_HOLDS_OBJECT (member))
    {
      JsonObject *object = json_node_get_object (member);
      g_autoptr(GList) keys = json_object_get_members (object);

      g_hash_table_remove_all (self->overrides);
      for (const GList *l = keys; l != NULL; l = l->next)
        {
          JsonNode *value = json_object_get_member (object, l->data);

          if (!is_override_key (l->data) || !JSON_NODE_HOLDS_VALUE (value)
              || json_node_get_value_type (value) != G_TYPE_BOOLEAN)
            continue;
          if (g_hash_table_size (self->overrides) >= MAX_OVERRIDES)
            break;
          g_hash_table_insert (self->overrides, g_strdup (l->data),
                               GINT_TO_POINTER (json_node_get_boolean (value) + 1));
        }
    }

  if ((member = json_object_get_member (root, "userItems")) && JSON_NODE_HOLDS_ARRAY (member))
    {
      JsonArray *array = json_node_get_array (member);

      g_ptr_array_set_size (self->user_items, 0);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);
          JsonObject *object;
          const char *text;

          if (!JSON_NODE_HOLDS_OBJECT (element))
            continue;
          object = json_node_get_object (element);
          if (!(text = pd_json_get_string (object, "text")))
            continue;
          pd_checklist_add_user_item (self, text);
          /* A missing or mistyped "done" leaves the new item open. */
          if (pd_json_get_boolean (object, "done", FALSE))
            pd_checklist_set_user_item_done (self, self->user_items->len - 1, TRUE);
        }
    }

  return TRUE;
}

static JsonObject *
item_to_json (const PdChecklistItem *item,
              PdChecklistStatus      effective)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "text", item->text);
  json_object_set_string_member (object, "status", pd_checklist_status_to_string (effective));
  if (effective != item->status)
    json_object_set_string_member (object, "agent_status", pd_checklist_status_to_string (item->status));
  if (item->source_id)
    json_object_set_string_member (object, "id", item->source_id);
  json_object_set_string_member (object, "origin", pd_checklist_origin_to_string (item->origin));
  json_object_set_string_member (object, "key", item->key ? item->key : "");
  return object;
}

JsonNode *
pd_checklist_to_json (PdChecklist *self)
{
  JsonObject *root = json_object_new ();
  JsonArray *agent = json_array_new ();
  JsonArray *user = json_array_new ();
  JsonNode *node;
  guint done, total, active;

  g_return_val_if_fail (PD_IS_CHECKLIST (self), NULL);

  for (guint i = 0; i < self->agent_items->len; i++)
    json_array_add_object_element (agent, item_to_json (g_ptr_array_index (self->agent_items, i),
                                                        pd_checklist_get_effective_status (self, i)));
  for (guint i = 0; i < self->user_items->len; i++)
    {
      const PdChecklistItem *item = g_ptr_array_index (self->user_items, i);
      json_array_add_object_element (user, item_to_json (item, item->status));
    }

  pd_checklist_count (self, &done, &total, &active);
  json_object_set_string_member (root, "origin", pd_checklist_origin_to_string (self->origin));
  json_object_set_array_member (root, "agent_items", agent);
  json_object_set_array_member (root, "user_items", user);
  json_object_set_int_member (root, "done", done);
  json_object_set_int_member (root, "total", total);
  json_object_set_int_member (root, "in_progress", active);
  /* A list cut where it was read: how much of it is not in agent_items
   * (and so not in the counts). */
  json_object_set_boolean_member (root, "truncated", self->n_hidden > 0);
  json_object_set_int_member (root, "hidden_items", self->n_hidden);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, root);
  return node;
}

static void
write_item (PdJsonWriter          *writer,
            const PdChecklistItem *item,
            PdChecklistStatus      effective)
{
  pd_json_writer_begin_object (writer, NULL);
  pd_json_writer_string (writer, "text", item->text);
  pd_json_writer_string (writer, "status", pd_checklist_status_to_string (effective));
  if (effective != item->status)
    pd_json_writer_string (writer, "agent_status", pd_checklist_status_to_string (item->status));
  if (item->source_id)
    pd_json_writer_string (writer, "id", item->source_id);
  pd_json_writer_string (writer, "origin", pd_checklist_origin_to_string (item->origin));
  pd_json_writer_string (writer, "key", item->key ? item->key : "");
  pd_json_writer_end_object (writer);
}

/**
 * pd_checklist_write_json:
 * @name: (nullable): the member it is written as
 *
 * Writes what pd_checklist_to_json() makes, the same bytes, with no tree.
 */
void
pd_checklist_write_json (PdChecklist  *self,
                         PdJsonWriter *writer,
                         const char   *name)
{
  guint done, total, active;

  g_return_if_fail (PD_IS_CHECKLIST (self));

  pd_checklist_count (self, &done, &total, &active);
  pd_json_writer_begin_object (writer, name);
  pd_json_writer_string (writer, "origin", pd_checklist_origin_to_string (self->origin));
  pd_json_writer_begin_array (writer, "agent_items");
  for (guint i = 0; i < self->agent_items->len; i++)
    write_item (writer, g_ptr_array_index (self->agent_items, i), pd_checklist_get_effective_status (self, i));
  pd_json_writer_end_array (writer);
  pd_json_writer_begin_array (writer, "user_items");
  for (guint i = 0; i < self->user_items->len; i++)
    {
      const PdChecklistItem *item = g_ptr_array_index (self->user_items, i);

      write_item (writer, item, item->status);
    }
  pd_json_writer_end_array (writer);
  pd_json_writer_int (writer, "done", done);
  pd_json_writer_int (writer, "total", total);
  pd_json_writer_int (writer, "in_progress", active);
  pd_json_writer_boolean (writer, "truncated", self->n_hidden > 0);
  pd_json_writer_int (writer, "hidden_items", self->n_hidden);
  pd_json_writer_end_object (writer);
}
