/* pd-test-runs-remote.h: what the tests of windows on a serve endpoint
 * share (test-runs-remote.c, test-runs-remote-guard.c): sending from the
 * window's message bar, and a session of a real serve replaying a fixture
 * (RemoteCase).  Header-only, as pd-test-runs.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-test-runs.h"
#include "../pd-test-count-proxy.h"

static inline gboolean
is_message_entry (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_ENTRY (widget) && gtk_widget_has_css_class (gtk_widget_get_parent (widget), "pd-message-bar");
}

static inline gboolean
remote_one_listed (gpointer data)
{
  PdSessionList *list = session_list (data);

  return pd_session_list_get_loaded (list) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))) >= 1;
}

static inline gboolean
send_enabled (gpointer data)
{
  return action_enabled (data, "win.send-message");
}

/* Selects @id and sends @message from the window's message bar. */
static inline void
send_from_window (PdWindow   *window,
                  const char *id,
                  const char *message)
{
  GtkWidget *entry;

  pd_test_wait_until (remote_one_listed, window, "the endpoint's sessions to be listed");
  g_assert_true (pd_session_list_select (session_list (window), id));
  pd_test_wait_until (send_enabled, window, "the message bar to offer sending");
  entry = pd_test_find_first (GTK_WIDGET (window), is_message_entry, NULL);
  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), message);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.send-message", NULL));
}

static inline gboolean
is_approval_command (GtkWidget     *widget,
                     gconstpointer  data)
{
  /* The first line of the approval dialog's preview (pd-approval-preview.c). */
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "pd-approval-line");
}

typedef struct
{
  RunFixture       *fixture;
  char             *id;
  const char       *url;      /* the endpoint's, with its token */
  PdTestCountProxy *proxy;    /* (nullable) in front of it, the window's way */
} RemoteCase;


/* A session "Remote work" on a real serve of a fixture that replays two
 * writes; the window, started on the endpoint, gets it as a RemoteCase in
 * @check.  With @elsewhere, another client starts a run of it with that
 * message first. */
static inline void
run_remote_case_of (PdTestWindowFunc  check,
                    const char       *elsewhere,
                    const char       *replay)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay);
  g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
  g_autofree char *id = pd_test_add_session (store, "Remote work", "plandeck");
  RemoteCase remote = { fixture, id };
  PdTestServed served = { fixture };
  const char *args[] = { "--remote", NULL, NULL };

  pd_test_served_start (&served);
  remote.url = served.url;
  if (elsewhere != NULL)
    start_run_elsewhere (served.url, id, elsewhere);
  args[1] = served.url;
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check, &remote, NULL), ==, 0);
  pd_test_served_clear (&served);
}

static inline void
run_remote_case (PdTestWindowFunc  check,
                 const char       *elsewhere)
{
  run_remote_case_of (check, elsewhere, replay_writes);
}

static inline gboolean
is_masked_warning (GtkWidget     *widget,
                   gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "pd-approval-masked") &&
         gtk_widget_get_visible (widget);
}

static inline void
on_approval_asked (PdRunController *runs,
                   const char      *session_id,
                   const char      *tool,
                   guint            serial,
                   guint           *slot)
{
  *slot = serial;
}
