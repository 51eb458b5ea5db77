/* pd-gemini-index.c: the Gemini CLI reader's messages in order, by id.
 *
 * A Gemini CLI session may write a message again with its id (it replaces
 * the one before, in its place) or rewind to one (every message after it
 * goes), so the reader keeps every message's id and place to the end.  A
 * message whose id alone matters (most of them) is an id in a shared block
 * and a place in a table of 32-bit numbers, no structure of its own: a
 * structure, a copy of its id and a hash table's entry for each took about
 * 270 bytes a message, 324 MB for a 63 MB file of one-letter messages
 * (tried as an attacker would, att19 M1), where Claude Code's reader keeps
 * 2 MB of the same file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-gemini-reader-private.h"

typedef struct
{
  const char      *id;        /* in ids */
  PdGeminiMessage *message;   /* (nullable): NULL for a message whose id alone matters */
} Entry;

struct _PdGeminiIndex
{
  GStringChunk   *ids;
  GArray         *entries;    /* Entry, in order */
  /* (nullable) goffset beside each entry: where its line starts, read
   * again for the pages (-1: none); made when a first line is given. */
  GArray         *lines;
  /* Open addressing: each slot an entry's index + 1 (0: empty).  Slots of
   * entries a rewind let go are left (stale) until the table is built
   * again; a lookup compares ids, so a stale slot never matches wrongly. */
  guint32        *slots;
  guint           mask;
  guint           used;       /* slots not empty */
  guint           held;       /* messages with a structure (not NULL) */
  GDestroyNotify  free_message;
};

#define MIN_SLOTS 64

/* The most structures any index held at once since the last reset. */
static gint peak_held;

static void
note_held (PdGeminiIndex *self)
{
  gint peak;

  do
    peak = g_atomic_int_get (&peak_held);
  while ((gint) self->held > peak && !g_atomic_int_compare_and_exchange (&peak_held, peak, (gint) self->held));
}

guint
_pd_gemini_index_reset_peak_held (void)
{
  gint peak;

  do
    peak = g_atomic_int_get (&peak_held);
  while (!g_atomic_int_compare_and_exchange (&peak_held, peak, 0));
  return (guint) peak;
}

PdGeminiIndex *
_pd_gemini_index_new (GDestroyNotify free_message)
{
  PdGeminiIndex *self = g_new0 (PdGeminiIndex, 1);

  self->ids = g_string_chunk_new (64 * 1024);
  self->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  self->slots = g_new0 (guint32, MIN_SLOTS);
  self->mask = MIN_SLOTS - 1;
  self->free_message = free_message;
  return self;
}

static void
free_from (PdGeminiIndex *self,
           guint          from)
{
  for (guint i = from; i < self->entries->len; i++)
    {
      Entry *entry = &g_array_index (self->entries, Entry, i);

      if (entry->message != NULL)
        {
          self->free_message (entry->message);
          self->held--;
        }
    }
}

void
_pd_gemini_index_free (PdGeminiIndex *self)
{
  if (self == NULL)
    return;
  free_from (self, 0);
  g_array_unref (self->entries);
  g_clear_pointer (&self->lines, g_array_unref);
  g_string_chunk_free (self->ids);
  g_free (self->slots);
  g_free (self);
}

void
_pd_gemini_index_clear (PdGeminiIndex *self)
{
  free_from (self, 0);
  g_array_set_size (self->entries, 0);
  g_clear_pointer (&self->lines, g_array_unref);
  g_string_chunk_clear (self->ids);
  g_free (self->slots);
  self->slots = g_new0 (guint32, MIN_SLOTS);
  self->mask = MIN_SLOTS - 1;
  self->used = 0;
}

guint
_pd_gemini_index_get_length (PdGeminiIndex *self)
{
  return self->entries->len;
}

PdGeminiMessage *
_pd_gemini_index_get (PdGeminiIndex *self,
                      guint          index)
{
  g_return_val_if_fail (index < self->entries->len, NULL);
  return g_array_index (self->entries, Entry, index).message;
}

/* g_str_hash() of @length bytes (an id in a line is not terminated). */
static guint
hash_id (const char *id,
         gsize       length)
{
  guint32 hash = 5381;

  for (gsize i = 0; i < length; i++)
    hash = (hash << 5) + hash + (guint32) (signed char) id[i];
  return hash;
}

/* The slot of @id's live entry, else the first empty one on its way. */
static guint
find_slot (PdGeminiIndex *self,
           const char    *id,
           gsize          length,
           gboolean      *found)
{
  guint slot = hash_id (id, length) & self->mask;

  for (;; slot = (slot + 1) & self->mask)
    {
      guint32 value = self->slots[slot];
      const Entry *entry;

      if (value == 0)
        {
          *found = FALSE;
          return slot;
        }
      if (value - 1 >= self->entries->len)
        continue;
      entry = &g_array_index (self->entries, Entry, value - 1);
      if (strncmp (entry->id, id, length) == 0 && entry->id[length] == '\0')
        {
          *found = TRUE;
          return slot;
        }
    }
}

gboolean
_pd_gemini_index_lookup (PdGeminiIndex *self,
                         const char    *id,
                         gsize          length,
                         guint         *index)
{
  gboolean found;
  guint slot = find_slot (self, id, length, &found);

  if (found && index != NULL)
    *index = self->slots[slot] - 1;
  return found;
}

/* The table again, of the live entries only, at most a quarter full. */
static void
rebuild (PdGeminiIndex *self)
{
  guint size = MIN_SLOTS;

  while (size < 4 * (self->entries->len + 1))
    size *= 2;
  g_free (self->slots);
  self->slots = g_new0 (guint32, size);
  self->mask = size - 1;
  self->used = 0;
  for (guint i = 0; i < self->entries->len; i++)
    {
      const Entry *entry = &g_array_index (self->entries, Entry, i);
      guint slot = hash_id (entry->id, strlen (entry->id)) & self->mask;

      while (self->slots[slot] != 0)
        slot = (slot + 1) & self->mask;
      self->slots[slot] = i + 1;
      self->used++;
    }
}

static void
set_line (PdGeminiIndex *self,
          guint          index,
          goffset        line)
{
  if (self->lines == NULL && line < 0)
    return;
  if (self->lines == NULL)
    self->lines = g_array_new (FALSE, FALSE, sizeof (goffset));
  while (self->lines->len < self->entries->len)
    {
      goffset none = -1;

      g_array_append_val (self->lines, none);
    }
  g_array_index (self->lines, goffset, index) = line;
}

gboolean
_pd_gemini_index_put (PdGeminiIndex   *self,
                      const char      *id,
                      gsize            length,
                      PdGeminiMessage *message,
                      goffset          line,
                      guint            max)
{
  gboolean found;
  guint slot = find_slot (self, id, length, &found);
  Entry entry;

  if (found)
    {
      Entry *old = &g_array_index (self->entries, Entry, self->slots[slot] - 1);

      if (old->message != NULL)
        {
          self->free_message (old->message);
          self->held--;
        }
      old->message = message;
      set_line (self, self->slots[slot] - 1, line);
      if (message != NULL)
        {
          self->held++;
          note_held (self);
        }
      return TRUE;
    }
  if (self->entries->len >= max)
    {
      if (message != NULL)
        self->free_message (message);
      return FALSE;
    }
  entry.id = g_string_chunk_insert_len (self->ids, id, (gssize) length);
  entry.message = message;
  g_array_append_val (self->entries, entry);
  set_line (self, self->entries->len - 1, line);
  if (message != NULL)
    {
      self->held++;
      note_held (self);
    }
  self->slots[slot] = self->entries->len;
  /* Half full (stale slots too): built again, which lets the stale go. */
  if (++self->used > self->mask / 2)
    rebuild (self);
  return TRUE;
}

void
_pd_gemini_index_truncate (PdGeminiIndex *self,
                           guint          length)
{
  if (length >= self->entries->len)
    return;
  free_from (self, length);
  g_array_set_size (self->entries, length);
  if (self->lines != NULL && self->lines->len > length)
    g_array_set_size (self->lines, length);
}

goffset
_pd_gemini_index_take_line (PdGeminiIndex *self,
                            guint          index)
{
  goffset line;

  g_return_val_if_fail (index < self->entries->len, -1);
  if (self->lines == NULL || index >= self->lines->len)
    return -1;
  line = g_array_index (self->lines, goffset, index);
  g_array_index (self->lines, goffset, index) = -1;
  return line;
}

const char *
_pd_gemini_index_get_id (PdGeminiIndex *self,
                         guint          index)
{
  g_return_val_if_fail (index < self->entries->len, NULL);
  return g_array_index (self->entries, Entry, index).id;
}
