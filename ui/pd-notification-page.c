/* pd-notification-page.c: the Notifications page of Preferences
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One switch per kind of notification PdNotifier sends, bound to its
 * GSettings key, and the minutes after which a quiet checklist counts as
 * stalled.
 */
#define G_LOG_DOMAIN "pd-notification-page"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-notification-page.h"
#include "pd-reader-rows.h"
#include "pd-ui-util-private.h"

static const struct {
  const char *key;
  const char *title;
  const char *subtitle;
} kinds[] = {
  { "notify-run-finished", N_("Run Finished"), N_("A run started here is done") },
  { "notify-run-failed", N_("Run Failed"), N_("A run started here failed or ran out of its budget") },
  { "notify-approval", N_("Approval Needed"), N_("A run waits for approval of a change (the notification has Approve Once and Deny buttons) or for the review of its plan") },
  { "notify-plan-blocked", N_("Plan Blocked"), N_("A step of a session’s plan became blocked") },
  { "notify-checklist-completed", N_("Agent’s Checklist Completed"), N_("Every item of an imported agent’s checklist is done") },
  { "notify-checklist-stalled", N_("Agent’s Checklist Stalled"), N_("An imported agent’s checklist has unfinished items and has not changed for a while") },
};

static GtkWidget *
switch_row (GSettings  *settings,
            const char *key,
            const char *title,
            const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();

  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  _pd_switch_row_one_tab_stop (ADW_ACTION_ROW (row));
  g_settings_bind (settings, key, toggle, "active", G_SETTINGS_BIND_DEFAULT);

  return row;
}

/**
 * pd_notification_page_new:
 * @settings: the application's settings
 *
 * Returns: (transfer floating): the page
 */
AdwPreferencesPage *
pd_notification_page_new (GSettings *settings)
{
  AdwPreferencesPage *page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (1, 1440, 1);

  /* Short: at 360 px and 1.5× text the bottom bar's four equal tabs have
   * 87 px each, and "Notifications" needed 107 (cut to "Notifica…"). */
  adw_preferences_page_set_title (page, _("Alerts"));
  adw_preferences_page_set_name (page, "notifications");
  adw_preferences_page_set_icon_name (page, "preferences-system-notifications-symbolic");
  adw_preferences_group_set_title (group, _("Notify Me When"));
  adw_preferences_group_set_description (group, _("Nothing is sent about the session you are looking at."));
  _pd_preferences_group_name_list (group);

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    adw_preferences_group_add (group, switch_row (settings, kinds[i].key, _(kinds[i].title),
                                                  _(kinds[i].subtitle)));

  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Stalled After"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Minutes without a change"));
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  /* The field says its row (it was "GtkSpinButton" to a screen reader),
   * and is the row's one Tab stop. */
  _pd_field_row_one_tab_stop (ADW_ACTION_ROW (row), spin);
  g_settings_bind (settings, "notify-stalled-minutes", spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "notify-checklist-stalled", row, "sensitive", G_SETTINGS_BIND_GET);
  adw_preferences_group_add (group, row);

  adw_preferences_page_add (page, group);

  return page;
}
