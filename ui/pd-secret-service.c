/* pd-secret-service.c: the Secret Service, with a prompt that always answers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A locked keyring is unlocked through a prompt the keyring shows.  When
 * that prompt is dismissed (or cannot be shown: no prompter), libsecret
 * 0.20's own prompt handling ends its task with g_task_return_error() and
 * no error: a critical, after which the lookup or store that asked never
 * answers, so a window waited on it for ever and the app, held while a
 * key moved to the keyring, never quit.  This service performs prompts
 * itself and answers a dismissed one with an error, which every libsecret
 * call made through it then reports as its own.
 */
#define G_LOG_DOMAIN "pd-secret-service"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-secret-service.h"

struct _PdSecretService
{
  SecretService parent_instance;
};

G_DEFINE_FINAL_TYPE (PdSecretService, pd_secret_service, SECRET_TYPE_SERVICE)

static void
set_dismissed (GError **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       _("the keyring is locked and was not unlocked"));
}

static GVariant *
pd_secret_service_prompt_sync (SecretService       *service,
                               SecretPrompt        *prompt,
                               GCancellable        *cancellable,
                               const GVariantType  *return_type,
                               GError             **error)
{
  g_autoptr(GError) local_error = NULL;
  GVariant *value = secret_prompt_perform_sync (prompt, NULL, cancellable, return_type, &local_error);

  if (value == NULL && local_error == NULL)
    set_dismissed (&local_error);
  if (local_error != NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return value;
}

static void
on_prompt_performed (GObject      *object,
                     GAsyncResult *result,
                     gpointer      data)
{
  g_autoptr(GTask) task = data;
  GError *error = NULL;
  GVariant *value = secret_prompt_perform_finish (SECRET_PROMPT (object), result, &error);

  if (value != NULL)
    g_task_return_pointer (task, value, (GDestroyNotify) g_variant_unref);
  else
    {
      /* Dismissed: the prompt said nothing, libsecret's handling would
       * return NULL as an error. */
      if (error == NULL)
        set_dismissed (&error);
      g_task_return_error (task, error);
    }
}

static void
pd_secret_service_prompt_async (SecretService       *service,
                                SecretPrompt        *prompt,
                                const GVariantType  *return_type,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *task = g_task_new (service, cancellable, callback, user_data);

  g_task_set_source_tag (task, pd_secret_service_prompt_async);
  secret_prompt_perform (prompt, NULL, return_type, cancellable, on_prompt_performed, task);
}

static GVariant *
pd_secret_service_prompt_finish (SecretService  *service,
                                 GAsyncResult   *result,
                                 GError        **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
pd_secret_service_class_init (PdSecretServiceClass *klass)
{
  SecretServiceClass *service_class = SECRET_SERVICE_CLASS (klass);

  service_class->prompt_sync = pd_secret_service_prompt_sync;
  service_class->prompt_async = pd_secret_service_prompt_async;
  service_class->prompt_finish = pd_secret_service_prompt_finish;
}

static void
pd_secret_service_init (PdSecretService *self)
{
}

/* One service for the process: the main thread's calls and a run's worker
 * share it. */
G_LOCK_DEFINE_STATIC (shared);
static SecretService *shared;

static SecretService *
dup_shared (void)
{
  SecretService *service;

  G_LOCK (shared);
  service = shared != NULL ? g_object_ref (shared) : NULL;
  G_UNLOCK (shared);
  return service;
}

static SecretService *
keep_shared (SecretService *service)
{
  G_LOCK (shared);
  if (shared == NULL)
    shared = g_object_ref (service);
  else
    g_set_object (&service, shared);
  G_UNLOCK (shared);
  return service;
}

static void
on_opened (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(GTask) task = data;
  GError *error = NULL;
  SecretService *service = secret_service_open_finish (result, &error);

  if (service == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, keep_shared (service), g_object_unref);
}

/**
 * pd_secret_service_get_async:
 *
 * Gets the process's #PdSecretService, connecting it the first time; a
 * failed connection is tried again by the next call (a keyring may start
 * later).
 */
void
pd_secret_service_get_async (GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  SecretService *service = dup_shared ();

  g_task_set_source_tag (task, pd_secret_service_get_async);
  if (service != NULL)
    {
      g_task_return_pointer (task, service, g_object_unref);
      g_object_unref (task);
      return;
    }
  secret_service_open (PD_TYPE_SECRET_SERVICE, NULL, SECRET_SERVICE_NONE, cancellable, on_opened, task);
}

SecretService *
pd_secret_service_get_finish (GAsyncResult  *result,
                              GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The same, for a worker thread. */
SecretService *
pd_secret_service_get_sync (GCancellable  *cancellable,
                            GError       **error)
{
  SecretService *service = dup_shared ();

  if (service != NULL)
    return service;
  service = secret_service_open_sync (PD_TYPE_SECRET_SERVICE, NULL, SECRET_SERVICE_NONE, cancellable, error);
  return service != NULL ? keep_shared (service) : NULL;
}
