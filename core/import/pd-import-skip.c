/* pd-import-skip.c: a file an import did not read, and why.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-import-skip.h"

G_DEFINE_BOXED_TYPE (PdImportSkip, pd_import_skip, pd_import_skip_copy, pd_import_skip_free)

PdImportSkip *
pd_import_skip_new (const char *path,
                    const char *reason)
{
  PdImportSkip *self = g_new0 (PdImportSkip, 1);

  self->path = g_strdup (path ? path : "");
  self->reason = g_strdup (reason ? reason : "");
  return self;
}

PdImportSkip *
pd_import_skip_copy (const PdImportSkip *self)
{
  return pd_import_skip_new (self->path, self->reason);
}

void
pd_import_skip_free (PdImportSkip *self)
{
  if (self == NULL)
    return;
  g_free (self->path);
  g_free (self->reason);
  g_free (self);
}

GPtrArray *
pd_import_skips_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) pd_import_skip_free);
}

JsonNode *
pd_import_skips_to_json (GPtrArray *skips)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; skips && i < skips->len; i++)
    {
      const PdImportSkip *skip = g_ptr_array_index (skips, i);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "path", skip->path);
      json_object_set_string_member (object, "reason", skip->reason);
      json_array_add_object_element (array, object);
    }
  {
    /* The node takes the array: json_node_init_array() took a reference of
     * its own, and the array leaked (valgrind). */
    JsonNode *node = json_node_new (JSON_NODE_ARRAY);

    json_node_take_array (node, array);
    return node;
  }
}

void
_pd_import_skip_add (GPtrArray  *skips,
                     const char *path,
                     const char *reason)
{
  if (skips != NULL)
    g_ptr_array_add (skips, pd_import_skip_new (path, reason));
}

/* The reason is the error's message without the "PATH: " it starts with
 * when the open helper wrote it; the path is printed beside it anyway. */
void
_pd_import_skip_add_error (GPtrArray    *skips,
                           const char   *path,
                           const GError *error)
{
  const char *message = error ? error->message : "could not be read";
  gsize len = path ? strlen (path) : 0;

  if (len > 0 && strncmp (message, path, len) == 0 && strncmp (message + len, ": ", 2) == 0)
    message += len + 2;
  _pd_import_skip_add (skips, path, message);
}

/**
 * pd_import_skips_write_json:
 *
 * Writes what pd_import_skips_to_json() makes as the member @name, the
 * same bytes, with no tree.
 */
void
pd_import_skips_write_json (GPtrArray    *skips,
                            PdJsonWriter *writer,
                            const char   *name)
{
  pd_json_writer_begin_array (writer, name);
  for (guint i = 0; skips && i < skips->len; i++)
    {
      const PdImportSkip *skip = g_ptr_array_index (skips, i);

      pd_json_writer_begin_object (writer, NULL);
      pd_json_writer_string (writer, "path", skip->path);
      pd_json_writer_string (writer, "reason", skip->reason);
      pd_json_writer_end_object (writer);
    }
  pd_json_writer_end_array (writer);
}
