/* pd-notifier.c: desktop notifications for what needs the user
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One PdNotifier per window, fed by that window's run controller (a run of
 * ours finished, failed, or waits for an approval) and by its listed
 * sessions (a plan with a step newly blocked; an imported agent's
 * checklist completed, or "stalled": unfinished items and no change for
 * the configured time).  Notifications go through GNotification, so the
 * desktop's notification server shows them (org.gtk.Notifications, or
 * org.freedesktop.Notifications when that is all there is); their buttons
 * and click activate the application actions named in pd-notifier.h with
 * the session id as target.
 *
 * Each kind is sent once per occurrence: a session's state is remembered
 * and a notification goes out when it changes into the state, never on a
 * poll that finds it unchanged.  What a session was like before this window
 * listed it is not news: a session first seen with no change since the
 * window opened is only remembered.  Nothing is sent for the session shown
 * in this window while the window has the focus: the user sees it.
 */
#define G_LOG_DOMAIN "pd-notifier"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-notifier-private.h"
#include "pd-random.h"
#include "pd-safe-text.h"
#include "pd-session-item.h"
#include "pd-ui-util-private.h"

/* How often stalled checklists are looked for; the stall time itself is a
 * setting in minutes, so a check every half minute is precise enough. */
#define STALL_CHECK_SECONDS 30

typedef struct
{
  gint64   updated_at;        /* of the info last seen */
  guint    blocked;           /* blocked steps last seen */
  gboolean complete;          /* every item done, last seen */
  gint64   stalled_at;        /* updated_at a stall was sent for; 0: none */
  gboolean imported;
  guint    done;
  guint    total;
  char    *title;
  GStrv    blocked_ids;       /* of the steps blocked when the plan was last read */
} Track;

/* Which notification server GLib sends to.  GLib picks its backend once
 * per process, at the first notification: org.gtk.Notifications when that
 * name has an owner, else org.freedesktop.Notifications. */
typedef enum
{
  SERVER_NONE,
  SERVER_GTK,
  SERVER_FDO,
  SERVER_PORTAL,
} ServerKind;

/* The backend GLib picked, once a notification was sent (main thread). */
static ServerKind glib_backend = SERVER_NONE;

enum { NAME_GTK, NAME_FDO, N_NAMES };

static const char * const server_names[N_NAMES] = {
  "org.gtk.Notifications",
  "org.freedesktop.Notifications",
};

/* A notification waiting for the answers about the server. */
typedef struct
{
  char          *id;
  char          *body;
  GNotification *notification;
} Pending;

/* An approval question a notification was sent for.  The notification's
 * buttons name it by a random id (its key in approvals): the question's
 * number restarts with each run controller, window and process, and a
 * stale button that named "SESSION/1" answered the next process's question
 * 1, an edit nobody saw (tried as an attacker would). */
typedef struct
{
  char     *session_id;
  guint     serial;
  gboolean  approvable; /* the notification offered Approve Once */
} Approval;

static void
approval_free (Approval *approval)
{
  g_free (approval->session_id);
  g_free (approval);
}

static void
pending_free (Pending *pending)
{
  g_free (pending->id);
  g_free (pending->body);
  g_object_unref (pending->notification);
  g_free (pending);
}

struct _PdNotifier
{
  GObject          parent_instance;

  GtkWindow       *window;        /* (unowned) owns this notifier */
  GSettings       *settings;
  GListModel      *sessions;
  PdRunController *runs;
  PdSource        *source;        /* (nullable) the window's, to read a blocked plan */
  GHashTable      *tracks;        /* session id → Track */
  GHashTable      *approvals;    /* question id → Approval */
  gint64           started_at;    /* unix µs */
  guint            stall_timer;

  /* What the bus says about notification servers, asked once (without
   * blocking) and kept up to date by watching the names. */
  GDBusConnection *bus;
  GCancellable    *cancellable;
  guint            watches[N_NAMES];
  int              owned[N_NAMES];       /* -1: not known yet */
  int              activatable[N_NAMES]; /* -1: not known yet */
  int              body_markup;          /* the fdo server's; -1: not known yet */
  gboolean         caps_asked;
  GPtrArray       *pending;              /* (element-type Pending) */
  char            *run_title;            /* the run's task, quoted (pd_notifier_title_of()) */
  char            *review_id;            /* a plan review's notification, sent */
};

G_DEFINE_FINAL_TYPE (PdNotifier, pd_notifier, G_TYPE_OBJECT)

static void
track_free (Track *track)
{
  g_free (track->title);
  g_strfreev (track->blocked_ids);
  g_free (track);
}

static const char *
pd_notifier_title_of (PdNotifier *self,
                      const char *session_id)
{
  Track *track = g_hash_table_lookup (self->tracks, session_id);

  if (track != NULL && track->title != NULL && track->title[0] != '\0')
    return track->title;
  /* A new run's session, not listed yet: its task names it, as the list
   * will (its first question came before, "Untitled session"). */
  if (self->runs != NULL && pd_run_controller_get_task (self->runs) != NULL &&
      g_strcmp0 (pd_run_controller_get_session_id (self->runs), session_id) == 0)
    {
      g_free (self->run_title);
      self->run_title = _pd_notifier_quote_title (pd_run_controller_get_task (self->runs));
      return self->run_title;
    }
  return _("Untitled session");
}

/* @window has the focus, or one of its own modal dialogs has: an approval
 * dialog takes the focus from the window it asks in, and the user is
 * looking at both (every approval in the focused window was notified). */
static gboolean
pd_notifier_window_has_focus (GtkWindow *window)
{
  g_autoptr(GListModel) toplevels = NULL;
  guint n;

  if (gtk_window_is_active (window))
    return TRUE;
  toplevels = gtk_window_get_toplevels ();
  g_object_ref (toplevels);
  n = g_list_model_get_n_items (toplevels);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkWindow) other = g_list_model_get_item (toplevels, i);

      if (other != window && gtk_window_get_modal (other) &&
          gtk_window_get_transient_for (other) == window &&
          gtk_widget_get_visible (GTK_WIDGET (other)) && gtk_window_is_active (other))
        return TRUE;
    }
  return FALSE;
}

/* The user is looking at @session_id: the window shows it and has the focus. */
static gboolean
pd_notifier_is_seen (PdNotifier *self,
                     const char *session_id)
{
  g_autofree char *shown = NULL;

  if (self->window == NULL || !pd_notifier_window_has_focus (self->window) ||
      !gtk_widget_get_mapped (GTK_WIDGET (self->window)))
    return FALSE;
  /* PdWindow's session-id: the session its views show. */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (self->window), "session-id") != NULL)
    g_object_get (self->window, "session-id", &shown, NULL);

  return g_strcmp0 (shown, session_id) == 0;
}

static char *
notification_id (const char *kind,
                 const char *session_id)
{
  return g_strdup_printf ("%s:%s", kind, session_id);
}

/* The server GLib sends to, from what is known; FALSE while an answer is
 * still awaited.  Once a notification was sent GLib's backend is fixed,
 * and only that backend's server will do. */
static gboolean
pd_notifier_server (PdNotifier *self,
                    ServerKind *kind)
{
  ServerKind backend = glib_backend;
  gboolean there[N_NAMES];

  /* The portal: always there for a sandboxed app, and it takes buttons. */
  if (backend == SERVER_PORTAL || _pd_notifier_in_sandbox ())
    {
      *kind = SERVER_PORTAL;
      return TRUE;
    }
  for (guint i = 0; i < N_NAMES; i++)
    {
      if (self->owned[i] < 0 || self->activatable[i] < 0)
        return FALSE;
    }
  /* GLib's gtk backend needs the name owned; the fdo one starts its server. */
  there[NAME_GTK] = self->owned[NAME_GTK];
  there[NAME_FDO] = self->owned[NAME_FDO] || self->activatable[NAME_FDO];

  if (backend == SERVER_GTK || backend == SERVER_FDO)
    *kind = there[backend == SERVER_GTK ? NAME_GTK : NAME_FDO] ? backend : SERVER_NONE;
  else if (there[NAME_GTK])
    *kind = SERVER_GTK;
  else if (there[NAME_FDO])
    *kind = SERVER_FDO;
  else
    *kind = SERVER_NONE;
  return TRUE;
}

static void pd_notifier_flush (PdNotifier *self);

static void
on_capabilities (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  g_autoptr(PdNotifier) self = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);

  if (self->window == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (reply == NULL)
    {
      /* A server that cannot say is taken to read markup: escaped text
       * is safe there, only less pretty. */
      g_debug ("no capabilities from the notification server: %s", error->message);
      self->body_markup = TRUE;
    }
  else
    {
      g_autofree const char **caps = NULL;

      g_variant_get (reply, "(^a&s)", &caps);
      self->body_markup = g_strv_contains (caps, "body-markup");
    }
  pd_notifier_flush (self);
}

/* Whether the freedesktop.org server reads bodies as markup; asked once
 * per server (GetCapabilities starts one that is only startable). */
static void
pd_notifier_ask_capabilities (PdNotifier *self)
{
  if (self->caps_asked)
    return;
  self->caps_asked = TRUE;
  g_dbus_connection_call (self->bus, server_names[NAME_FDO], "/org/freedesktop/Notifications",
                          server_names[NAME_FDO], "GetCapabilities", NULL, G_VARIANT_TYPE ("(as)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, self->cancellable, on_capabilities,
                          g_object_ref (self));
}

/* Sends what waits, once the server is known: to no server, nothing (GLib's
 * fallback backend would warn on every notification). */
static void
pd_notifier_flush (PdNotifier *self)
{
  GtkApplication *app = self->window ? gtk_window_get_application (self->window) : NULL;
  ServerKind kind;

  if (self->pending->len == 0)
    return;
  if (app == NULL)
    {
      g_ptr_array_set_size (self->pending, 0);
      return;
    }
  if (!pd_notifier_server (self, &kind))
    return;

  if (kind == SERVER_FDO && self->body_markup < 0)
    {
      pd_notifier_ask_capabilities (self);
      return;
    }

  for (guint i = 0; i < self->pending->len; i++)
    {
      Pending *pending = g_ptr_array_index (self->pending, i);

      if (kind == SERVER_NONE)
        {
          g_debug ("no notification server: %s not sent", pending->id);
          continue;
        }
      /* Bodies carry titles a model or a transcript wrote: a server that
       * reads markup gets them escaped, so it shows them as they are (the
       * portal and org.gtk.Notifications read plain text). */
      if (kind == SERVER_FDO && self->body_markup)
        {
          g_autofree char *escaped = g_markup_escape_text (pending->body, -1);

          g_notification_set_body (pending->notification, escaped);
        }
      else
        g_notification_set_body (pending->notification, pending->body);
      g_debug ("sending %s", pending->id);
      g_application_send_notification (G_APPLICATION (app), pending->id, pending->notification);
      glib_backend = kind;
    }
  g_ptr_array_set_size (self->pending, 0);
}

static void
on_name_appeared (GDBusConnection *bus,
                  const char      *name,
                  const char      *owner,
                  gpointer         data)
{
  PdNotifier *self = data;
  guint i = g_strcmp0 (name, server_names[NAME_GTK]) == 0 ? NAME_GTK : NAME_FDO;

  self->owned[i] = TRUE;
  if (i == NAME_FDO)
    {
      /* Another server: ask it again. */
      self->body_markup = -1;
      self->caps_asked = FALSE;
      pd_notifier_ask_capabilities (self);
    }
  pd_notifier_flush (self);
}

static void
on_name_vanished (GDBusConnection *bus,
                  const char      *name,
                  gpointer         data)
{
  PdNotifier *self = data;
  guint i = g_strcmp0 (name, server_names[NAME_GTK]) == 0 ? NAME_GTK : NAME_FDO;

  self->owned[i] = FALSE;
  if (i == NAME_FDO)
    {
      self->body_markup = -1;
      self->caps_asked = FALSE;
    }
  pd_notifier_flush (self);
}

static void
on_activatable_names (GObject      *source,
                      GAsyncResult *result,
                      gpointer      data)
{
  g_autoptr(PdNotifier) self = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  g_autofree const char **list = NULL;

  if (self->window == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (reply != NULL)
    g_variant_get (reply, "(^a&s)", &list);
  for (guint i = 0; i < N_NAMES; i++)
    self->activatable[i] = list != NULL && g_strv_contains (list, server_names[i]);
  pd_notifier_flush (self);
}

/* Asks the bus, once, which servers there are (as GLib does to pick its
 * backend), without waiting for the answer; the names are watched from
 * then on, so a server started later is found when it comes. */
static void
pd_notifier_probe (PdNotifier   *self,
                   GApplication *app)
{
  if (self->bus != NULL || _pd_notifier_in_sandbox ())
    return;
  self->bus = g_application_get_dbus_connection (app);
  if (self->bus == NULL)
    return;
  g_object_ref (self->bus);
  for (guint i = 0; i < N_NAMES; i++)
    self->watches[i] = g_bus_watch_name_on_connection (self->bus, server_names[i], G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                       on_name_appeared, on_name_vanished, self, NULL);
  g_dbus_connection_call (self->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                          "ListActivatableNames", NULL, G_VARIANT_TYPE ("(as)"), G_DBUS_CALL_FLAGS_NONE, -1,
                          self->cancellable, on_activatable_names, g_object_ref (self));
}

/* Whether a notification of @kind about @session_id may go out now: its
 * switch in Preferences (@settings_key) is on, the user is not looking at
 * the session, and there is a session bus to send it on. */
static gboolean
pd_notifier_may_send (PdNotifier *self,
                      const char *settings_key,
                      const char *kind,
                      const char *session_id)
{
  GtkApplication *app;

  if (self->window == NULL || !g_settings_get_boolean (self->settings, settings_key))
    return FALSE;
  if (pd_notifier_is_seen (self, session_id))
    return FALSE;
  app = gtk_window_get_application (self->window);
  if (app == NULL || g_application_get_dbus_connection (G_APPLICATION (app)) == NULL)
    {
      g_debug ("no session bus: %s not sent", kind);
      return FALSE;
    }
  return TRUE;
}

/* @settings_key: the switch in Preferences that allows this kind.  @body is
 * plain text; it is set when the server is known (escaped for one that
 * reads markup). */
static gboolean
pd_notifier_send_as (PdNotifier    *self,
                     const char    *settings_key,
                     const char    *kind,
                     const char    *id,
                     const char    *session_id,
                     GNotification *notification,
                     const char    *body)
{
  GtkApplication *app;
  Pending *pending;

  if (!pd_notifier_may_send (self, settings_key, kind, session_id))
    return FALSE;
  app = gtk_window_get_application (self->window);

  g_notification_set_default_action_and_target (notification, "app." PD_NOTIFIER_ACTION_OPEN,
                                                "s", session_id);
  /* The app's icon: a freedesktop.org server gets it as the image-path
   * hint, and showed none before. */
  {
    g_autoptr(GIcon) icon = g_themed_icon_new (APP_ID);

    g_notification_set_icon (notification, icon);
  }
  pending = g_new0 (Pending, 1);
  pending->id = g_strdup (id);
  pending->body = g_strdup (body);
  pending->notification = g_object_ref (notification);
  g_ptr_array_add (self->pending, pending);
  pd_notifier_probe (self, G_APPLICATION (app));
  pd_notifier_flush (self);
  return TRUE;
}

static void
pd_notifier_send (PdNotifier    *self,
                  const char    *settings_key,
                  const char    *kind,
                  const char    *session_id,
                  GNotification *notification,
                  const char    *body)
{
  g_autofree char *id = notification_id (kind, session_id);

  pd_notifier_send_as (self, settings_key, kind, id, session_id, notification, body);
}

/* Withdraws notification @id, sent or waiting.  The application is the
 * default one when the window has left it already (shutdown). */
static void
pd_notifier_withdraw_id (PdNotifier *self,
                         const char *id)
{
  GtkApplication *app = self->window ? gtk_window_get_application (self->window) : NULL;
  GApplication *gapp = app != NULL ? G_APPLICATION (app) : g_application_get_default ();

  for (guint i = self->pending->len; i > 0; i--)
    if (g_strcmp0 (((Pending *) g_ptr_array_index (self->pending, i - 1))->id, id) == 0)
      g_ptr_array_remove_index (self->pending, i - 1);
  if (gapp != NULL && g_application_get_is_registered (gapp))
    g_application_withdraw_notification (gapp, id);
}

/* Withdraws the approval notifications of questions no longer open: all of
 * them when @all. */
static void
pd_notifier_withdraw_approvals (PdNotifier *self,
                                gboolean    all)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->approvals);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Approval *approval = value;

      if (!all && self->runs != NULL &&
          pd_run_controller_has_approval (self->runs, approval->session_id, approval->serial))
        continue;
      {
        g_autofree char *id = notification_id ("approval", key);

        pd_notifier_withdraw_id (self, id);
      }
      g_hash_table_iter_remove (&iter);
    }
}

/* Runs of ours. */

static void
on_run_finished (PdNotifier *self,
                 int         status,
                 const char *message)
{
  const char *session_id = pd_run_controller_get_session_id (self->runs);
  const char *title;
  g_autoptr(GNotification) notification = NULL;
  g_autofree char *body = NULL;
  g_autofree char *safe_message = NULL;

  if (session_id == NULL)
    return;
  pd_notifier_withdraw_approvals (self, TRUE);

  title = pd_notifier_title_of (self, session_id);
  switch ((PdRunStatus) status)
    {
    case PD_RUN_COMPLETED:
      notification = g_notification_new (_("Run Finished"));
      /* Translators: %s is a session's title */
      body = g_strdup_printf (_("“%s” is done."), title);
      pd_notifier_send (self, "notify-run-finished", "run-finished", session_id, notification, body);
      break;

    case PD_RUN_CANCELLED:
      /* Stopped by the user, who knows. */
      break;

    case PD_RUN_FAILED:
    case PD_RUN_BUDGET_EXCEEDED:
    case PD_RUN_REFUSED:
    case PD_RUN_INCOMPLETE:
    default:
      notification = g_notification_new (_("Run Failed"));
      /* Translators: %s is a session's title, then why its run failed */
      body = message != NULL && message[0] != '\0'
        ? g_strdup_printf (_("“%s”: %s"), title, safe_message = _pd_notifier_quote_text (message))
        : g_strdup_printf (_("“%s” did not finish."), title);
      g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
      pd_notifier_send (self, "notify-run-failed", "run-failed", session_id, notification, body);
      break;
    }
}

static void
on_approval_asked (PdNotifier *self,
                   const char *session_id,
                   const char *tool,
                   guint       serial)
{
  g_autoptr(GNotification) notification = g_notification_new (_("Approval Needed"));
  g_autofree char *body = NULL;
  g_autofree char *safe_tool = _pd_notifier_quote_text (tool);
  g_autofree char *question = NULL;
  g_autofree char *id = NULL;
  g_autofree char *asked = NULL;
  Approval *approval;
  gboolean whole;

  if (session_id == NULL)
    return;

  /* What it asks about.  Approve Once is offered only for a request the
   * body shows whole, on one line: it approved a command the notification
   * never showed (tried as an attacker would).  An edit's or a write's
   * summary names the file alone, its change is shown only in the dialog:
   * Approve Once on "Edit file X" ran an edit nobody saw (tried as an
   * attacker would), so such a request is never approved from here. */
  if (self->runs != NULL)
    {
      const char *summary = pd_run_controller_get_approval_text (self->runs, session_id, serial);

      if (pd_approver_summary_is_whole (tool, summary))
        asked = pd_safe_text_approval (summary);
    }
  whole = asked != NULL && asked[0] != '\0' && strchr (asked, '\n') == NULL &&
          g_utf8_strlen (asked, -1) <= PD_NOTIFY_QUOTE_CHARS;
  if (whole)
    {
      g_autofree char *isolated = g_strconcat ("\xe2\x81\xa8", asked, "\xe2\x81\xa9", NULL);

      /* Translators: %s is a session's title, %s the name of a tool, such as
       * shell, then what it asks to do, such as the command */
      body = g_strdup_printf (_("“%s” waits for your approval to use the tool “%s”: %s"),
                              pd_notifier_title_of (self, session_id), safe_tool, isolated);
    }
  else
    /* Translators: %s is a session's title, %s the name of a tool, such as shell */
    body = g_strdup_printf (_("“%s” waits for your approval to use the tool “%s”. Open it to see the whole request."),
                            pd_notifier_title_of (self, session_id), safe_tool);
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_URGENT);
  /* The buttons name this question, by an id no other question of any
   * window or process has: pressed after it was answered, they must not
   * answer the next one.  Each question has its own notification, so
   * answering one leaves the others' there. */
  question = pd_random_hex (16);
  id = notification_id ("approval", question);
  if (whole)
    g_notification_add_button_with_target (notification, _("Approve Once"),
                                           "app." PD_NOTIFIER_ACTION_APPROVE, "s", question);
  g_notification_add_button_with_target (notification, _("Deny"),
                                         "app." PD_NOTIFIER_ACTION_DENY, "s", question);
  if (!pd_notifier_send_as (self, "notify-approval", "approval", id, session_id, notification, body))
    return;
  approval = g_new0 (Approval, 1);
  approval->session_id = g_strdup (session_id);
  approval->serial = serial;
  approval->approvable = whole;
  g_hash_table_insert (self->approvals, g_steal_pointer (&question), approval);
}

/* Plan mode's review waits for the user, a question like an approval; it
 * is answered in its dialog alone, where the plan is shown whole, so the
 * notification only opens the session (no notification said so before). */
static void
on_review_asked (PdNotifier *self,
                 const char *session_id)
{
  g_autoptr(GNotification) notification = g_notification_new (_("Plan Ready for Review"));
  g_autofree char *body = NULL;
  g_autofree char *id = NULL;

  if (session_id == NULL)
    return;
  /* Translators: %s is a session's title */
  body = g_strdup_printf (_("“%s” waits for you to review its plan: open it to approve the plan or keep planning."),
                          pd_notifier_title_of (self, session_id));
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_URGENT);
  g_clear_pointer (&self->review_id, g_free);
  id = notification_id ("plan-review", session_id);
  if (pd_notifier_send_as (self, "notify-approval", "plan-review", id, session_id, notification, body))
    self->review_id = g_steal_pointer (&id);
}

/* The review was answered, or goes with its run or window. */
static void
on_review_ended (PdNotifier *self)
{
  g_autofree char *id = g_steal_pointer (&self->review_id);

  if (id != NULL)
    pd_notifier_withdraw_id (self, id);
}

/* A question was answered (in the dialog, from a notification, on the
 * server) or closed: the notifications of those no longer open go. */
static void
on_approval_answered (PdNotifier *self,
                      const char *session_id)
{
  pd_notifier_withdraw_approvals (self, FALSE);
}

/**
 * pd_notifier_answer_approval:
 * @question: the target of an approval notification's button
 * @allow: approve once, or deny
 *
 * Answers the question an approval notification of this notifier showed,
 * if it is still open.  Approve is refused for a question its notification
 * offered only Deny for (an edit, a write, a command not shown whole): the
 * action is on the session bus, and any client there can activate it.
 *
 * Returns: whether @question names one of this notifier's notifications
 */
gboolean
pd_notifier_answer_approval (PdNotifier *self,
                             const char *question,
                             gboolean    allow)
{
  Approval *approval;

  g_return_val_if_fail (PD_IS_NOTIFIER (self), FALSE);

  approval = question != NULL ? g_hash_table_lookup (self->approvals, question) : NULL;
  if (approval == NULL)
    return FALSE;
  if (allow && !approval->approvable)
    {
      g_debug ("an approval of a question its notification offered only Deny for is refused");
      return TRUE;
    }
  if (self->runs != NULL)
    pd_run_controller_answer_approval (self->runs, approval->session_id, approval->serial, allow);
  /* Answered, or no longer open: either way its notification goes. */
  pd_notifier_withdraw_approvals (self, FALSE);
  return TRUE;
}

/**
 * pd_notifier_withdraw_all:
 *
 * Withdraws the approval notifications this notifier sent: their window
 * or the application goes, and no button of theirs can answer anything.
 */
void
pd_notifier_withdraw_all (PdNotifier *self)
{
  g_return_if_fail (PD_IS_NOTIFIER (self));

  pd_notifier_withdraw_approvals (self, TRUE);
  on_review_ended (self);
}

/* Listed sessions. */

static void
pd_notifier_send_stalled (PdNotifier *self,
                          const char *session_id,
                          Track      *track)
{
  g_autoptr(GNotification) notification = g_notification_new (_("Agent Went Quiet"));
  guint minutes = g_settings_get_uint (self->settings, "notify-stalled-minutes");
  g_autofree char *body = NULL;
  g_autofree char *items = NULL;
  g_autofree char *quiet = NULL;

  items = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u unfinished item", "%u unfinished items",
                                        track->total - track->done),
                           track->total - track->done);
  quiet = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "no change for %u minute",
                                        "no change for %u minutes", minutes),
                           minutes);
  /* Translators: "“Title” has 3 unfinished items and no change for 15 minutes." */
  body = g_strdup_printf (_("“%s” has %s and %s."), pd_notifier_title_of (self, session_id), items, quiet);
  pd_notifier_send (self, "notify-checklist-stalled", "checklist-stalled", session_id, notification, body);
}

/* "Plan Blocked", naming the step newly blocked (@plan's, when it could
 * be read): "Plan Blocked" alone left the user to look for it. */
static void
pd_notifier_send_blocked (PdNotifier        *self,
                          const char        *session_id,
                          const PdPlanState *plan)
{
  g_autoptr(GNotification) notification = g_notification_new (_("Plan Blocked"));
  g_autoptr(GStrvBuilder) ids = g_strv_builder_new ();
  Track *track = g_hash_table_lookup (self->tracks, session_id);
  g_autofree char *body = NULL;
  const PdPlanStep *named = NULL;
  guint named_index = 0;
  guint newly = 0;
  guint blocked = 0;

  for (guint i = 0; plan != NULL && i < plan->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (plan->steps, i);

      if (step->status != PD_PLAN_STEP_BLOCKED)
        continue;
      blocked++;
      g_strv_builder_add (ids, step->id);
      if (track != NULL && track->blocked_ids != NULL &&
          g_strv_contains ((const char * const *) track->blocked_ids, step->id))
        continue;
      if (newly++ == 0)
        {
          named = step;
          named_index = i;
        }
    }
  if (track != NULL && plan != NULL)
    {
      g_strfreev (track->blocked_ids);
      track->blocked_ids = g_strv_builder_end (ids);
    }

  if (named != NULL)
    {
      g_autofree char *cut = _pd_notifier_cut_quote (named->title);
      g_autofree char *step = _pd_isolated_line (cut);

      if (newly == 1)
        /* Translators: %s is a session's title, %u a step's number, then its title */
        body = g_strdup_printf (_("“%s” is blocked at step %u: %s"),
                                pd_notifier_title_of (self, session_id), named_index + 1, step);
      else
        /* Translators: %s is a session's title, %u a step's number, then its
         * title, then how many other steps became blocked */
        body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "“%s” is blocked at step %u: %s, and %u more step",
                                             "“%s” is blocked at step %u: %s, and %u more steps", newly - 1),
                                pd_notifier_title_of (self, session_id), named_index + 1, step, newly - 1);
    }
  else
    /* Translators: %s is a session's title */
    body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "A step of “%s” is blocked.",
                                         "Steps of “%s” are blocked.", MAX (blocked, 1)),
                            pd_notifier_title_of (self, session_id));
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
  pd_notifier_send (self, "notify-plan-blocked", "plan-blocked", session_id, notification, body);
}

typedef struct
{
  PdNotifier *self;
  char       *session_id;
} PlanRead;

static void
on_blocked_plan (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  PlanRead *read = data;
  g_autoptr(PdNotifier) self = read->self;
  g_autofree char *session_id = read->session_id;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GError) error = NULL;

  g_free (read);
  if (!pd_source_get_plan_finish (PD_SOURCE (source), result, &plan, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      g_debug ("the blocked plan of %s was not read: %s", session_id, error->message);
    }
  if (self->window == NULL)
    return;
  pd_notifier_send_blocked (self, session_id, plan);
}

/* A step of @session_id became blocked: which one, its plan says. */
static void
pd_notifier_plan_blocked (PdNotifier *self,
                          const char *session_id)
{
  PlanRead *read;

  /* Read only for a notification that can go out now. */
  if (!pd_notifier_may_send (self, "notify-plan-blocked", "plan-blocked", session_id))
    return;
  if (self->source == NULL)
    {
      pd_notifier_send_blocked (self, session_id, NULL);
      return;
    }
  read = g_new0 (PlanRead, 1);
  read->self = g_object_ref (self);
  read->session_id = g_strdup (session_id);
  pd_source_get_plan_async (self->source, session_id, self->cancellable, on_blocked_plan, read);
}

static void
pd_notifier_observe (PdNotifier          *self,
                     const PdSessionInfo *info,
                     const char          *title)
{
  Track *track = g_hash_table_lookup (self->tracks, info->id);
  gboolean imported = pd_session_info_is_imported (info);
  gboolean complete = info->plan_total > 0 && info->plan_done >= info->plan_total;
  gboolean fresh;

  if (track == NULL)
    {
      /* First seen: what happened before the window opened is old news,
       * unless the session changed since (a new session, or one a run or
       * an agent is writing to right now). */
      track = g_new0 (Track, 1);
      fresh = info->updated_at >= self->started_at;
      if (!fresh)
        {
          track->blocked = info->plan_blocked;
          track->complete = complete;
        }
      g_hash_table_insert (self->tracks, g_strdup (info->id), track);
    }

  g_free (track->title);
  /* Bodies are plain text: the title's controls are made visible and the
   * title isolated, so a right-to-left title cannot reorder our sentence. */
  track->title = title != NULL && title[0] != '\0' ? _pd_notifier_quote_title (title) : NULL;
  track->imported = imported;
  track->done = info->plan_done;
  track->total = info->plan_total;
  track->updated_at = info->updated_at;

  if (info->plan_blocked > track->blocked)
    pd_notifier_plan_blocked (self, info->id);
  track->blocked = info->plan_blocked;

  if (imported && complete && !track->complete)
    {
      g_autoptr(GNotification) notification = g_notification_new (_("Checklist Completed"));
      g_autofree char *body = NULL;

      /* Translators: %s is a session's title, %u how many items its checklist has */
      body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "“%s”: its %u item is done.",
                                           "“%s”: all %u items are done.", info->plan_total),
                              pd_notifier_title_of (self, info->id), info->plan_total);
      pd_notifier_send (self, "notify-checklist-completed", "checklist-completed", info->id, notification, body);
    }
  track->complete = complete;
}

static void
observe_item (PdNotifier    *self,
              PdSessionItem *item)
{
  const PdSessionInfo *info = pd_session_item_get_info (item);
  gboolean named = (info->name != NULL && info->name[0] != '\0') ||
                   (info->task != NULL && info->task[0] != '\0');

  /* A session with neither name nor task yet is listed as "Untitled
   * session": not a title to keep. */
  pd_notifier_observe (self, info, named ? pd_session_item_get_title (item) : NULL);
}

static void
on_item_notify (PdSessionItem *item,
                GParamSpec    *pspec,
                PdNotifier    *self)
{
  observe_item (self, item);
}

static void
on_sessions_changed (GListModel *model,
                     guint       position,
                     guint       removed,
                     guint       added,
                     PdNotifier *self)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);

      /* An item moved in a merge is connected already. */
      if (g_signal_handler_find (item, G_SIGNAL_MATCH_FUNC | G_SIGNAL_MATCH_DATA, 0, 0, NULL,
                                 on_item_notify, self) == 0)
        g_signal_connect_object (item, "notify", G_CALLBACK (on_item_notify), self, 0);
      observe_item (self, item);
    }
}

/**
 * _pd_notifier_check_stalled:
 * @now_usec: the present, unix µs
 *
 * Sends "stalled" for each imported checklist with unfinished items whose
 * last change is the configured time before @now_usec, once per change.
 * One quiet already when the window opened is not news either.
 */
void
_pd_notifier_check_stalled (PdNotifier *self,
                            gint64      now_usec)
{
  gint64 quiet = (gint64) g_settings_get_uint (self->settings, "notify-stalled-minutes") * 60 * G_USEC_PER_SEC;
  GHashTableIter iter;
  gpointer key, value;

  g_return_if_fail (PD_IS_NOTIFIER (self));

  g_hash_table_iter_init (&iter, self->tracks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Track *track = value;

      if (!track->imported || track->total == 0 || track->done >= track->total)
        continue;
      if (track->stalled_at == track->updated_at)
        continue;
      if (track->updated_at + quiet < self->started_at)
        continue;
      if (now_usec - track->updated_at < quiet)
        continue;
      track->stalled_at = track->updated_at;
      pd_notifier_send_stalled (self, key, track);
    }
}

static gboolean
on_stall_timer (gpointer data)
{
  _pd_notifier_check_stalled (PD_NOTIFIER (data), g_get_real_time ());

  return G_SOURCE_CONTINUE;
}

static void
pd_notifier_dispose (GObject *object)
{
  PdNotifier *self = PD_NOTIFIER (object);

  g_clear_handle_id (&self->stall_timer, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  for (guint i = 0; i < N_NAMES; i++)
    g_clear_handle_id (&self->watches[i], g_bus_unwatch_name);
  g_clear_object (&self->bus);
  pd_notifier_set_runs (self, NULL);
  g_clear_object (&self->source);
  g_ptr_array_set_size (self->pending, 0);
  if (self->sessions != NULL)
    {
      guint n = g_list_model_get_n_items (self->sessions);

      g_signal_handlers_disconnect_by_data (self->sessions, self);
      for (guint i = 0; i < n; i++)
        {
          g_autoptr(GObject) item = g_list_model_get_item (self->sessions, i);

          g_signal_handlers_disconnect_by_data (item, self);
        }
      g_clear_object (&self->sessions);
    }
  self->window = NULL;

  G_OBJECT_CLASS (pd_notifier_parent_class)->dispose (object);
}

static void
pd_notifier_finalize (GObject *object)
{
  PdNotifier *self = PD_NOTIFIER (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->tracks, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_ptr_array_unref);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->approvals, g_hash_table_unref);
  g_free (self->run_title);
  g_free (self->review_id);

  G_OBJECT_CLASS (pd_notifier_parent_class)->finalize (object);
}

static void
pd_notifier_class_init (PdNotifierClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_notifier_dispose;
  object_class->finalize = pd_notifier_finalize;
}

static void
pd_notifier_init (PdNotifier *self)
{
  self->settings = g_settings_new (APP_ID);
  self->tracks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) track_free);
  self->approvals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) approval_free);
  self->started_at = g_get_real_time ();
  self->cancellable = g_cancellable_new ();
  self->pending = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_free);
  self->body_markup = -1;
  for (guint i = 0; i < N_NAMES; i++)
    {
      self->owned[i] = -1;
      self->activatable[i] = -1;
    }
  self->stall_timer = g_timeout_add_seconds (STALL_CHECK_SECONDS, on_stall_timer, self);
}

/**
 * pd_notifier_new:
 * @window: the window that owns the notifier and shows its sessions
 *
 * Returns: (transfer full): a notifier watching nothing yet
 */
PdNotifier *
pd_notifier_new (GtkWindow *window)
{
  PdNotifier *self = g_object_new (PD_TYPE_NOTIFIER, NULL);

  self->window = window;

  return self;
}

/**
 * pd_notifier_set_runs:
 * @runs: (nullable): the window's run controller
 */
void
pd_notifier_set_runs (PdNotifier      *self,
                      PdRunController *runs)
{
  g_return_if_fail (PD_IS_NOTIFIER (self));

  if (self->runs == runs)
    return;
  /* Another controller's questions are other questions. */
  if (self->approvals != NULL)
    pd_notifier_withdraw_approvals (self, TRUE);
  on_review_ended (self);
  if (self->runs != NULL)
    g_signal_handlers_disconnect_by_data (self->runs, self);
  g_set_object (&self->runs, runs);
  if (runs == NULL)
    return;
  g_signal_connect_object (runs, "finished", G_CALLBACK (on_run_finished), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runs, "approval-asked", G_CALLBACK (on_approval_asked), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runs, "approval-answered", G_CALLBACK (on_approval_answered), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runs, "review-asked", G_CALLBACK (on_review_asked), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runs, "review-ended", G_CALLBACK (on_review_ended), self, G_CONNECT_SWAPPED);
}

/**
 * pd_notifier_set_source:
 * @source: (nullable): the window's source, which the watched sessions
 *   come from
 *
 * A blocked plan's notification names its step, read from @source.
 */
void
pd_notifier_set_source (PdNotifier *self,
                        PdSource   *source)
{
  g_return_if_fail (PD_IS_NOTIFIER (self));

  g_set_object (&self->source, source);
}

/**
 * pd_notifier_watch_sessions:
 * @sessions: (element-type PdSessionItem): the window's listed sessions
 */
void
pd_notifier_watch_sessions (PdNotifier *self,
                            GListModel *sessions)
{
  g_return_if_fail (PD_IS_NOTIFIER (self));
  g_return_if_fail (self->sessions == NULL);

  self->sessions = g_object_ref (sessions);
  g_signal_connect_object (sessions, "items-changed", G_CALLBACK (on_sessions_changed), self, 0);
  on_sessions_changed (sessions, 0, 0, g_list_model_get_n_items (sessions), self);
}
