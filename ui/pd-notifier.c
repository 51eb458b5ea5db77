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

#include <glib/gi18n.h>

#include "pd-notifier-private.h"
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
} Track;

struct _PdNotifier
{
  GObject          parent_instance;

  GtkWindow       *window;        /* (unowned) owns this notifier */
  GSettings       *settings;
  GListModel      *sessions;
  PdRunController *runs;
  GHashTable      *tracks;        /* session id → Track */
  char            *approval_session; /* a sent approval notification's session */
  gint64           started_at;    /* unix µs */
  guint            stall_timer;
};

G_DEFINE_FINAL_TYPE (PdNotifier, pd_notifier, G_TYPE_OBJECT)

static void
track_free (Track *track)
{
  g_free (track->title);
  g_free (track);
}

static const char *
pd_notifier_title_of (PdNotifier *self,
                      const char *session_id)
{
  Track *track = g_hash_table_lookup (self->tracks, session_id);

  if (track != NULL && track->title != NULL && track->title[0] != '\0')
    return track->title;
  return _("Untitled session");
}

/* The user is looking at @session_id: the window shows it and has the focus. */
static gboolean
pd_notifier_is_seen (PdNotifier *self,
                     const char *session_id)
{
  g_autofree char *shown = NULL;

  if (self->window == NULL || !gtk_window_is_active (self->window) ||
      !gtk_widget_get_mapped (GTK_WIDGET (self->window)))
    return FALSE;
  /* PdWindow's session-id: the session its views show. */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (self->window), "session-id") != NULL)
    g_object_get (self->window, "session-id", &shown, NULL);

  return g_strcmp0 (shown, session_id) == 0;
}

/* Whether a notification server is there to send to: GLib's fallback
 * backend warns on every notification when none is (a bare X session, a
 * test's private bus).  The names are asked of the bus itself, as GLib
 * does to pick its backend; a server started later is found then. */
static gboolean
have_notification_server (GApplication *app)
{
  static const char * const names[] = { "org.gtk.Notifications", "org.freedesktop.Notifications" };
  GDBusConnection *bus = g_application_get_dbus_connection (app);
  g_autoptr(GVariant) activatable = NULL;

  if (bus == NULL)
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GVariant) reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                               "org.freedesktop.DBus", "NameHasOwner",
                                                               g_variant_new ("(s)", names[i]), G_VARIANT_TYPE ("(b)"),
                                                               G_DBUS_CALL_FLAGS_NONE, 1000, NULL, NULL);
      gboolean owned = FALSE;

      if (reply != NULL)
        g_variant_get (reply, "(b)", &owned);
      if (owned)
        return TRUE;
    }

  activatable = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                             "org.freedesktop.DBus", "ListActivatableNames", NULL,
                                             G_VARIANT_TYPE ("(as)"), G_DBUS_CALL_FLAGS_NONE, 1000, NULL, NULL);
  if (activatable != NULL)
    {
      g_autofree const char **list = NULL;

      g_variant_get (activatable, "(^a&s)", &list);
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        if (g_strv_contains (list, names[i]))
          return TRUE;
    }

  return FALSE;
}

static char *
notification_id (const char *kind,
                 const char *session_id)
{
  return g_strdup_printf ("%s:%s", kind, session_id);
}

/* @settings_key: the switch in Preferences that allows this kind. */
static void
pd_notifier_send (PdNotifier    *self,
                  const char    *settings_key,
                  const char    *kind,
                  const char    *session_id,
                  GNotification *notification)
{
  GtkApplication *app;
  g_autofree char *id = NULL;

  if (self->window == NULL || !g_settings_get_boolean (self->settings, settings_key))
    return;
  if (pd_notifier_is_seen (self, session_id))
    return;
  app = gtk_window_get_application (self->window);
  if (app == NULL || !have_notification_server (G_APPLICATION (app)))
    {
      g_debug ("no notification server: %s not sent", kind);
      return;
    }

  g_notification_set_default_action_and_target (notification, "app." PD_NOTIFIER_ACTION_OPEN,
                                                "s", session_id);
  id = notification_id (kind, session_id);
  g_debug ("sending %s", id);
  g_application_send_notification (G_APPLICATION (app), id, notification);
}

static void
pd_notifier_withdraw (PdNotifier *self,
                      const char *kind,
                      const char *session_id)
{
  GtkApplication *app = self->window ? gtk_window_get_application (self->window) : NULL;
  g_autofree char *id = notification_id (kind, session_id);

  if (app != NULL)
    g_application_withdraw_notification (G_APPLICATION (app), id);
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
  if (self->approval_session != NULL)
    {
      pd_notifier_withdraw (self, "approval", self->approval_session);
      g_clear_pointer (&self->approval_session, g_free);
    }

  title = pd_notifier_title_of (self, session_id);
  switch ((PdRunStatus) status)
    {
    case PD_RUN_COMPLETED:
      notification = g_notification_new (_("Run Finished"));
      /* Translators: %s is a session's title */
      body = g_strdup_printf (_("“%s” is done."), title);
      g_notification_set_body (notification, body);
      pd_notifier_send (self, "notify-run-finished", "run-finished", session_id, notification);
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
        ? g_strdup_printf (_("“%s”: %s"), title, safe_message = pd_safe_text_line (message))
        : g_strdup_printf (_("“%s” did not finish."), title);
      g_notification_set_body (notification, body);
      g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
      pd_notifier_send (self, "notify-run-failed", "run-failed", session_id, notification);
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
  g_autofree char *safe_tool = pd_safe_text_line (tool);
  g_autofree char *question = NULL;

  if (session_id == NULL)
    return;

  /* Translators: %s is a session's title, %s the name of a tool, such as shell */
  body = g_strdup_printf (_("“%s” waits for your approval to use the tool “%s”."),
                          pd_notifier_title_of (self, session_id), safe_tool);
  g_notification_set_body (notification, body);
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_URGENT);
  /* The buttons name this question, not only its session: pressed after it
   * was answered in the dialog, they must not answer the next one. */
  question = g_strdup_printf ("%s/%u", session_id, serial);
  g_notification_add_button_with_target (notification, _("Approve Once"),
                                         "app." PD_NOTIFIER_ACTION_APPROVE, "s", question);
  g_notification_add_button_with_target (notification, _("Deny"),
                                         "app." PD_NOTIFIER_ACTION_DENY, "s", question);
  g_free (self->approval_session);
  self->approval_session = g_strdup (session_id);
  pd_notifier_send (self, "notify-approval", "approval", session_id, notification);
}

/* Answered (in the dialog or from the notification): the question is gone. */
static void
on_approval_answered (PdNotifier *self,
                      const char *session_id)
{
  if (session_id == NULL)
    return;
  pd_notifier_withdraw (self, "approval", session_id);
  g_clear_pointer (&self->approval_session, g_free);
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
  g_notification_set_body (notification, body);
  pd_notifier_send (self, "notify-checklist-stalled", "checklist-stalled", session_id, notification);
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
  track->title = title != NULL && title[0] != '\0' ? _pd_isolated_line (title) : NULL;
  track->imported = imported;
  track->done = info->plan_done;
  track->total = info->plan_total;
  track->updated_at = info->updated_at;

  if (info->plan_blocked > track->blocked)
    {
      g_autoptr(GNotification) notification = g_notification_new (_("Plan Blocked"));
      g_autofree char *body = NULL;

      /* Translators: %s is a session's title */
      body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "A step of “%s” is blocked.",
                                           "Steps of “%s” are blocked.", info->plan_blocked),
                              pd_notifier_title_of (self, info->id));
      g_notification_set_body (notification, body);
      g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
      pd_notifier_send (self, "notify-plan-blocked", "plan-blocked", info->id, notification);
    }
  track->blocked = info->plan_blocked;

  if (imported && complete && !track->complete)
    {
      g_autoptr(GNotification) notification = g_notification_new (_("Checklist Completed"));
      g_autofree char *body = NULL;

      /* Translators: %s is a session's title, %u how many items its checklist has */
      body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "“%s”: its %u item is done.",
                                           "“%s”: all %u items are done.", info->plan_total),
                              pd_notifier_title_of (self, info->id), info->plan_total);
      g_notification_set_body (notification, body);
      pd_notifier_send (self, "notify-checklist-completed", "checklist-completed", info->id, notification);
    }
  track->complete = complete;
}

static void
observe_item (PdNotifier    *self,
              PdSessionItem *item)
{
  pd_notifier_observe (self, pd_session_item_get_info (item), pd_session_item_get_title (item));
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
  pd_notifier_set_runs (self, NULL);
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
  g_free (self->approval_session);

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
  self->started_at = g_get_real_time ();
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
  if (self->runs != NULL)
    g_signal_handlers_disconnect_by_data (self->runs, self);
  g_set_object (&self->runs, runs);
  if (runs == NULL)
    return;
  g_signal_connect_object (runs, "finished", G_CALLBACK (on_run_finished), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runs, "approval-asked", G_CALLBACK (on_approval_asked), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runs, "approval-answered", G_CALLBACK (on_approval_answered), self, G_CONNECT_SWAPPED);
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
