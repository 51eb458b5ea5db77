/* pd-json-writer.c: JSON written as it is made, no tree.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-json-writer"

#include "config.h"

#include <string.h>

#include "pd-json-writer.h"
#include "pd-safe-text.h"

/* Past this much the text goes to the file. */
#define FLUSH_BYTES (256 * 1024)

void
pd_json_writer_init (PdJsonWriter *self,
                     FILE         *file)
{
  memset (self, 0, sizeof *self);
  self->out = g_string_sized_new (file != NULL ? FLUSH_BYTES + 4096 : 4096);
  self->file = file;
}

/* Whether @c is written as it is inside a string, as JsonGenerator does:
 * all but the quote, the backslash, C0 controls but 0x1f, and DEL. */
static inline gboolean
is_plain (guchar c)
{
  return (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f) || c == 0x1f;
}

static void
append_escaped (GString    *out,
                const char *text)
{
  const guchar *p = (const guchar *) text;

  while (*p != '\0')
    {
      const guchar *run = p;

      if (*p >= 0x80)
        {
          /* Only text beyond ASCII can hold an invisible character. */
          while (*p >= 0x80)
            p++;
          pd_safe_text_append_json (out, (const char *) run, p - run);
          continue;
        }
      while (*p != '\0' && *p < 0x80 && is_plain (*p))
        p++;
      if (p > run)
        {
          g_string_append_len (out, (const char *) run, p - run);
          continue;
        }
      switch (*p)
        {
        case '"':
        case '\\':
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) *p);
          break;
        case '\b':
          g_string_append (out, "\\b");
          break;
        case '\f':
          g_string_append (out, "\\f");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          g_string_append_printf (out, "\\u00%02x", (guint) *p);
          break;
        }
      p++;
    }
}

static void
indent (GString *out,
        guint    level)
{
  for (guint i = 0; i < 2 * level; i++)
    g_string_append_c (out, ' ');
}

/* Before a value: the separator from the one before, the indent and the
 * member's name. */
static void
begin_value (PdJsonWriter *self,
             const char   *name)
{
  if (self->depth > 0)
    {
      g_string_append (self->out, self->count[self->depth - 1]++ == 0 ? "\n" : ",\n");
      indent (self->out, self->depth);
    }
  if (name != NULL)
    {
      g_string_append_c (self->out, '"');
      append_escaped (self->out, name);
      g_string_append (self->out, "\" : ");
    }
}

static void
end_value (PdJsonWriter *self)
{
  if (self->file != NULL && self->out->len >= FLUSH_BYTES)
    pd_json_writer_flush (self);
}

static void
begin_container (PdJsonWriter *self,
                 const char   *name,
                 char          open)
{
  begin_value (self, name);
  g_string_append_c (self->out, open);
  g_assert (self->depth < PD_JSON_WRITER_MAX_DEPTH);
  self->count[self->depth++] = 0;
}

void
pd_json_writer_begin_object (PdJsonWriter *self,
                             const char   *name)
{
  begin_container (self, name, '{');
}

void
pd_json_writer_begin_array (PdJsonWriter *self,
                            const char   *name)
{
  begin_container (self, name, '[');
}

/* An empty array is "[]"; an empty object keeps its indent inside
 * ("{    }"), as JsonGenerator writes them. */
static void
end_container (PdJsonWriter *self,
               char          close)
{
  guint members;

  g_assert (self->depth > 0);
  members = self->count[--self->depth];
  if (members > 0)
    g_string_append_c (self->out, '\n');
  if (members > 0 || close == '}')
    indent (self->out, self->depth);
  g_string_append_c (self->out, close);
  end_value (self);
}

void
pd_json_writer_end_object (PdJsonWriter *self)
{
  end_container (self, '}');
}

void
pd_json_writer_end_array (PdJsonWriter *self)
{
  end_container (self, ']');
}

void
pd_json_writer_string (PdJsonWriter *self,
                       const char   *name,
                       const char   *value)
{
  begin_value (self, name);
  if (value == NULL)
    g_string_append (self->out, "null");
  else
    {
      g_string_append_c (self->out, '"');
      append_escaped (self->out, value);
      g_string_append_c (self->out, '"');
    }
  end_value (self);
}

void
pd_json_writer_int (PdJsonWriter *self,
                    const char   *name,
                    gint64        value)
{
  begin_value (self, name);
  g_string_append_printf (self->out, "%" G_GINT64_FORMAT, value);
  end_value (self);
}

void
pd_json_writer_boolean (PdJsonWriter *self,
                        const char   *name,
                        gboolean      value)
{
  begin_value (self, name);
  g_string_append (self->out, value ? "true" : "false");
  end_value (self);
}

void
pd_json_writer_null (PdJsonWriter *self,
                     const char   *name)
{
  begin_value (self, name);
  g_string_append (self->out, "null");
  end_value (self);
}

/**
 * pd_json_writer_flush:
 *
 * Writes what is made so far to the file.
 *
 * Returns: %FALSE when the file took it not all
 */
gboolean
pd_json_writer_flush (PdJsonWriter *self)
{
  gboolean ok = TRUE;

  if (self->file != NULL && self->out->len > 0)
    ok = fwrite (self->out->str, 1, self->out->len, self->file) == self->out->len;
  if (self->file != NULL)
    g_string_truncate (self->out, 0);
  return ok;
}

/**
 * pd_json_writer_finish:
 *
 * Ends the writing: with a file, the rest is written to it and flushed;
 * without, the text is returned.
 *
 * Returns: (transfer full) (nullable): the text, %NULL with a file
 */
char *
pd_json_writer_finish (PdJsonWriter *self)
{
  if (self->file != NULL)
    {
      pd_json_writer_flush (self);
      g_string_free (self->out, TRUE);
      self->out = NULL;
      return NULL;
    }
  return g_string_free (g_steal_pointer (&self->out), FALSE);
}
