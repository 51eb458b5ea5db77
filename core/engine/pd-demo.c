/* pd-demo.c: the demo a newcomer opens to see Plandeck at work.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-demo.h"
#include "pd-embedded.h"
#include "pd-engine-builder.h"
#include "pd-json.h"
#include "pd-replay-provider.h"
#include "pd-task-util.h"

struct _PdDemo
{
  GObject    parent_instance;

  char      *root;       /* the temporary folder, removed with the demo */
  char      *folder;     /* root/project: the tools' working directory */
  char      *db_path;    /* root/sessions.db */
  JsonNode  *recording;
  char      *label;
  double     speed;
  PdEngine  *engine;
};

G_DEFINE_FINAL_TYPE (PdDemo, pd_demo, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ENGINE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);

        if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
          remove_tree (child);
        else
          g_unlink (child);
      }

  g_rmdir (path);
}

static void
pd_demo_finalize (GObject *object)
{
  PdDemo *self = (PdDemo *) object;

  g_clear_object (&self->engine);
  if (self->root != NULL)
    remove_tree (self->root);
  g_free (self->root);
  g_free (self->folder);
  g_free (self->db_path);
  g_free (self->label);
  g_clear_pointer (&self->recording, json_node_unref);

  G_OBJECT_CLASS (pd_demo_parent_class)->finalize (object);
}

static void
pd_demo_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  PdDemo *self = PD_DEMO (object);

  switch (prop_id)
    {
    case PROP_ENGINE:
      g_value_set_object (value, self->engine);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_demo_class_init (PdDemoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_demo_finalize;
  object_class->get_property = pd_demo_get_property;

  /**
   * PdDemo:engine:
   *
   * The engine of the run, once built (on the main thread, before the run
   * starts): a window listens to its bus.
   */
  properties[PROP_ENGINE] =
    g_param_spec_object ("engine", NULL, NULL, PD_TYPE_ENGINE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_demo_init (PdDemo *self)
{
  self->speed = 1.0;
}

static const PdEmbeddedFile *
embedded (const char *name)
{
  for (guint i = 0; pd_demo_files[i].name != NULL; i++)
    if (strcmp (pd_demo_files[i].name, name) == 0)
      return &pd_demo_files[i];
  return NULL;
}

/**
 * pd_demo_new:
 *
 * Writes the demo project into a new temporary folder.
 *
 * Returns: (transfer full): the demo, or %NULL with @error set
 */
PdDemo *
pd_demo_new (GError **error)
{
  g_autoptr(PdDemo) self = g_object_new (PD_TYPE_DEMO, NULL);
  const PdEmbeddedFile *run = embedded ("demo-run.json");

  if (!(self->root = g_dir_make_tmp ("plandeck-demo-XXXXXX", error)))
    return NULL;

  self->folder = g_build_filename (self->root, "project", NULL);
  self->db_path = g_build_filename (self->root, "sessions.db", NULL);
  if (g_mkdir (self->folder, 0700) != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot create the demo folder %s", self->folder);
      return NULL;
    }

  for (guint i = 0; pd_demo_files[i].name != NULL; i++)
    {
      const PdEmbeddedFile *file = &pd_demo_files[i];
      g_autofree char *path = NULL;

      if (strcmp (file->name, "demo-run.json") == 0)
        continue;
      path = g_build_filename (self->folder, file->name, NULL);
      if (!g_file_set_contents (path, file->data, (gssize) file->length, error))
        return NULL;
    }

  g_assert (run != NULL);
  if (!(self->recording = pd_json_parse (run->data, (gssize) run->length, error)))
    return NULL;
  self->label = g_strdup (json_object_get_string_member_with_default (json_node_get_object (self->recording),
                                                                      "label", "Plandeck demo"));

  return g_steal_pointer (&self);
}

const char *
pd_demo_get_folder (PdDemo *self)
{
  g_return_val_if_fail (PD_IS_DEMO (self), NULL);
  return self->folder;
}

const char *
pd_demo_get_database_path (PdDemo *self)
{
  g_return_val_if_fail (PD_IS_DEMO (self), NULL);
  return self->db_path;
}

const char *
pd_demo_get_label (PdDemo *self)
{
  g_return_val_if_fail (PD_IS_DEMO (self), NULL);
  return self->label;
}

/**
 * pd_demo_get_engine:
 *
 * Returns: (transfer none) (nullable): the run's engine, %NULL until it is
 *   built (see #PdDemo:engine)
 */
PdEngine *
pd_demo_get_engine (PdDemo *self)
{
  g_return_val_if_fail (PD_IS_DEMO (self), NULL);
  return self->engine;
}

/* 1.0 plays the recorded pace; tests play it at speed 0 (no delays). */
void
pd_demo_set_speed (PdDemo *self,
                   double  speed)
{
  g_return_if_fail (PD_IS_DEMO (self));
  /* NaN and below zero play without delays, as 0 does. */
  self->speed = speed > 0.0 ? speed : 0.0;
}

static JsonNode *
paced_recording (PdDemo *self)
{
  /* A deep, unshared copy (json_node_copy shares containers). */
  g_autofree char *text = pd_json_to_string (self->recording, FALSE);
  JsonNode *node = pd_json_parse (text, -1, NULL);
  JsonArray *turns;

  turns = json_object_get_array_member (json_node_get_object (node), "turns");
  for (guint i = 0; i < json_array_get_length (turns); i++)
    {
      JsonObject *turn = json_array_get_object_element (turns, i);
      gint64 delay = json_object_get_int_member_with_default (turn, "delay_ms", 0);

      double paced = self->speed > 0 ? (double) delay / self->speed : 0.0;

      /* A slow pace stays within what a recording may ask (10 s a turn);
       * the double never reaches an integer it cannot be cast to. */
      json_object_set_int_member (turn, "delay_ms", (gint64) CLAMP (paced, 0.0, 10000.0));
    }

  return node;
}

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  PdRunResult *run = pd_engine_run_finish (PD_ENGINE (source), result, &error);

  pd_task_return_pointer_or_error (task, run, (GDestroyNotify) pd_run_result_free, error);
}

/* Worker thread: building opens the database.  This task has no source
 * object, so wherever it is freed it frees no demo. */
static gpointer
build_worker (gpointer       source_object,
              gpointer       task_data,
              GCancellable  *cancellable,
              GError       **error)
{
  return pd_engine_builder_build (task_data, error);
}

/* Main thread: the demo keeps its engine, and the run starts. */
static void
on_built (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PdDemo *self = g_task_get_source_object (task);
  GCancellable *cancellable;
  GError *error = NULL;
  PdEngine *engine = g_task_propagate_pointer (G_TASK (result), &error);

  if (engine == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  g_clear_object (&self->engine);
  self->engine = engine;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ENGINE]);
  cancellable = g_task_get_cancellable (task);
  pd_engine_run_async (engine, NULL, PD_DEMO_TASK, cancellable, on_run_done, g_steal_pointer (&task));
}

/**
 * pd_demo_run_async:
 *
 * Starts the recorded run into the demo's database.  Everything runs in a
 * worker thread; the callback comes back on the caller's main context.
 *
 * The engine comes from the same builder as every other run's, with the
 * built-in defaults for a configuration: the recording was made with them,
 * and a person's limits or plan-mode rules are not the demo's.
 */
void
pd_demo_run_async (PdDemo              *self,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) build = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) recording = NULL;
  g_autoptr(PdReplayProvider) provider = NULL;
  g_autoptr(PdConfig) config = NULL;
  PdEngineBuilder *builder;

  g_return_if_fail (PD_IS_DEMO (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pd_demo_run_async);

  recording = paced_recording (self);
  if (!(provider = pd_replay_provider_new_from_json (recording, &error)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  config = pd_config_new_default ();
  builder = pd_engine_builder_new (config);
  pd_engine_builder_set_provider (builder, PD_PROVIDER (provider));
  pd_engine_builder_set_working_directory (builder, self->folder);
  pd_engine_builder_set_database_path (builder, self->db_path);
  /* The recording is known: its calls need no approval. */
  pd_engine_builder_set_approval (builder, PD_APPROVAL_POLICY_AUTO, NULL, NULL, NULL);
  pd_engine_builder_set_source (builder, "demo");

  build = g_task_new (NULL, cancellable, on_built, g_steal_pointer (&task));
  g_task_set_source_tag (build, build_worker);
  g_task_set_task_data (build, builder, g_object_unref);
  pd_task_run_worker (build, build_worker, g_object_unref);
}

PdRunResult *
pd_demo_run_finish (PdDemo        *self,
                    GAsyncResult  *result,
                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
