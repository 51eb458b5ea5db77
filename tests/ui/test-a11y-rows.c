/* test-a11y-rows.c: History's versions at 1.5× text; the rows of
 * Preferences and New Session as a screen reader and a keyboard meet them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, as test-a11y.c does. Each finding was read
 * over AT-SPI first (python3-pyatspi on a private accessibility bus, keys
 * from xdotool, gtk-xft-dpi at 1.5×): History's versions cut to
 * "v10 · 11:24:16 · 3/…"; an expanded profile's unnamed Tab stop
 * ("[list item] ''"); a profile's Provider said without its value; a
 * number field and New Session's Working Directory two Tab stops each; a
 * Privacy switch's subtitle only a relation, which no reader spoke.
 */
#define G_LOG_DOMAIN "test-a11y-rows"

#include "config.h"

#include <string.h>

#include "pd-history-view.h"
#include "pd-new-session-dialog.h"
#include "pd-preferences-window.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define N_VERSIONS 12

/* gtk-xft-dpi as the tests start */
static int base_dpi;

/* A value no widget carries: check_property then returns the real one. */
#define NO_SUCH_VALUE "\x01test-a11y-rows\x01"

/* @widget's own accessible property (not one from a relation), or NULL. */
static char *
own_property (GtkWidget             *widget,
              GtkAccessibleProperty  property)
{
  char *value;

  if (!gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), property))
    return NULL;
  value = gtk_test_accessible_check_property (GTK_ACCESSIBLE (widget), property, NO_SUCH_VALUE);
  if (value != NULL && *value == '\0')
    g_clear_pointer (&value, g_free);
  return value;
}

/* The text size now, for 1.5× of it (gtk-xft-dpi, as Large Text or a
 * font scaling of 1.5 sets it), and GNOME's window buttons, Close alone,
 * as test-a11y-layout.c has them for 360 px. */
static int
get_text_size (char **layout)
{
  GtkSettings *gtk_settings = gtk_settings_get_default ();
  int dpi = 0;

  g_object_get (gtk_settings, "gtk-xft-dpi", &dpi, "gtk-decoration-layout", layout, NULL);
  if (dpi <= 0)
    dpi = 96 * 1024;
  g_object_set (gtk_settings, "gtk-decoration-layout", "appmenu:close", NULL);
  return dpi;
}

/* --- History at 1.5× text ---------------------------------------------------- */

/* The shown labels of History's version list. */
static GPtrArray *
version_labels (GtkWidget *history)
{
  GtkWidget *list = pd_test_find_widget (history, GTK_TYPE_LIST_VIEW);
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  GPtrArray *shown = g_ptr_array_new ();

  pd_test_collect (list, GTK_TYPE_LABEL, all);
  for (guint i = 0; i < all->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (all, i);

      if (gtk_widget_get_mapped (label) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (label)), "v"))
        g_ptr_array_add (shown, label);
    }
  return shown;
}

static gboolean
versions_shown (gpointer data)
{
  GtkWidget *history = pd_test_find_widget (data, PD_TYPE_HISTORY_VIEW);
  g_autoptr(GPtrArray) labels = NULL;

  if (!gtk_widget_get_mapped (history))
    return FALSE;
  labels = version_labels (history);
  return labels->len >= 3;
}

static gboolean
window_resized (gpointer data)
{
  GtkWidget *window = data;
  int wanted = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (window), "a11y-width"));

  return gtk_widget_get_width (window) <= wanted + 16;
}

/* Each shown version row's text has its whole width: given less than its
 * natural width, a label is cut (or wrapped). Returns how many are cut. */
static guint
count_cut_versions (GtkWidget  *history,
                    const char *where,
                    guint      *n_checked)
{
  g_autoptr(GPtrArray) labels = version_labels (history);
  guint n_cut = 0;

  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      int natural = 0;
      int width = gtk_widget_get_width (label);

      gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      if (width < natural)
        {
          g_test_message ("%s: “%s” has %d px of the %d px it needs", where,
                          gtk_label_get_text (GTK_LABEL (label)), width, natural);
          n_cut++;
        }
    }
  *n_checked += labels->len;
  return n_cut;
}

static void
check_history_large_text (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  /* 360 px: a window of its own from the start, as a phone opens it. */
  const int wide[] = { 1280, 1000 };
  const int narrow[] = { 360 };
  const int *widths = GPOINTER_TO_INT (user_data) == 360 ? narrow : wide;
  guint n_widths = GPOINTER_TO_INT (user_data) == 360 ? G_N_ELEMENTS (narrow) : G_N_ELEMENTS (wide);
  GtkWidget *history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  GtkPaned *paned = GTK_PANED (pd_test_find_widget (history, GTK_TYPE_PANED));
  guint n_cut = 0;
  guint n_checked = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "history");
  pd_test_wait_until (versions_shown, window, "History's versions");
  /* Large Text turned on with the window open, as a person does in
   * Settings: the pane was sized once, for the text it was built with. */
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", base_dpi * 3 / 2, NULL);
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (window));
  for (guint i = 0; i < n_widths; i++)
    {
      g_autofree char *where = g_strdup_printf ("History at 1.5× text, %d px", widths[i]);
      g_autofree char *shot = g_strdup_printf ("a11y-rows-history-%d", widths[i]);
      GtkWidget *plan = gtk_paned_get_end_child (paned);

      g_object_set_data (G_OBJECT (window), "a11y-width", GINT_TO_POINTER (widths[i]));
      gtk_window_set_default_size (GTK_WINDOW (window), widths[i], 800);
      g_test_message ("%s: the window is %d px wide", where, gtk_widget_get_width (GTK_WIDGET (window)));
      pd_test_wait_until (window_resized, window, "the window's new width");
      adw_leaflet_set_visible_child_name (leaflet, "content");
      pd_test_spin (300);
      pd_test_flush (GTK_WIDGET (window));
      pd_test_wait_until (versions_shown, window, "History's versions");
      n_cut += count_cut_versions (history, where, &n_checked);
      g_test_message ("%s: versions pane %d px, plan %d px wide", where,
                      gtk_paned_get_position (paned), gtk_widget_get_width (plan));
      /* The plan beside (or below) the versions keeps room to be read. */
      g_assert_cmpint (gtk_widget_get_width (plan), >=, MIN (widths[i] / 3, 300));
      pd_test_screenshot (GTK_WIDGET (window), shot);
    }
  g_assert_cmpuint (n_checked, >=, 3 * n_widths);
  g_assert_cmpuint (n_cut, ==, 0);
}

static void
test_history_large_text (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "history.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *id = pd_test_add_session (store, "Add an export subcommand with tests and docs", "plandeck");
  g_autofree char *layout = NULL;
  int dpi = base_dpi = get_text_size (&layout);

  /* Two-digit versions: "v10 · 11:24:16 · 3/4 done" was cut. */
  for (gint64 v = 1; v <= N_VERSIONS; v++)
    {
      g_autoptr(PdPlanState) plan = pd_test_sample_plan (v);

      pd_test_save_plan (store, id, plan, PD_SESSION_STATUS_IDLE);
    }
  for (guint i = 0; i < 2; i++)
    {
      int width = i == 0 ? 1280 : 360;

      pd_test_reset_settings ();
      g_settings_set_int (settings, "window-width", width);
      g_settings_set_int (settings, "window-height", 800);
      g_assert_cmpint (pd_test_run_app (args, check_history_large_text, GINT_TO_POINTER (width), NULL), ==, 0);
      g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, NULL);
    }
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, "gtk-decoration-layout", layout, NULL);
}

/* --- Preferences and New Session ------------------------------------------- */

/* The accessible a reader meets at a Tab stop: itself, or for a part with
 * no role (an entry's GtkText) the nearest ancestor with one. */
static GtkWidget *
speaker_of (GtkWidget *stop)
{
  GtkWidget *w = stop;

  while (w != NULL && gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (w)) == GTK_ACCESSIBLE_ROLE_NONE)
    w = gtk_widget_get_parent (w);
  return w != NULL ? w : stop;
}

/* A row's title or subtitle as plain text (both are markup). */
static char *
plain (const char *markup)
{
  char *text = NULL;

  if (markup == NULL)
    return g_strdup ("");
  if (!pango_parse_markup (markup, -1, 0, NULL, &text, NULL, NULL))
    return g_strdup (markup);
  return text;
}

/* Shows the page of Preferences titled @title. */
static void
show_page (GtkWindow  *dialog,
           const char *title)
{
  g_autoptr(GPtrArray) pages = g_ptr_array_new ();

  pd_test_collect (GTK_WIDGET (dialog), ADW_TYPE_PREFERENCES_PAGE, pages);
  for (guint i = 0; i < pages->len; i++)
    if (g_strcmp0 (adw_preferences_page_get_title (g_ptr_array_index (pages, i)), title) == 0)
      {
        adw_preferences_window_set_visible_page (ADW_PREFERENCES_WINDOW (dialog), g_ptr_array_index (pages, i));
        pd_test_flush (GTK_WIDGET (dialog));
        return;
      }
  g_error ("Preferences has no page “%s”", title);
}

static guint
expand_profiles (GtkWindow *dialog)
{
  g_autoptr(GPtrArray) expanders = g_ptr_array_new ();

  pd_test_collect (GTK_WIDGET (dialog), ADW_TYPE_EXPANDER_ROW, expanders);
  for (guint i = 0; i < expanders->len; i++)
    adw_expander_row_set_expanded (g_ptr_array_index (expanders, i), TRUE);
  pd_test_flush (GTK_WIDGET (dialog));
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (dialog));
  return expanders->len;
}

/* Each Tab stop below @dialog is said with a name: returns how many were
 * not, after telling each. */
static guint
count_unnamed_stops (GtkWindow  *dialog,
                     const char *where,
                     guint      *n_stops)
{
  g_autoptr(GPtrArray) stops = pd_test_a11y_tab_stops (dialog);
  guint n_unnamed = 0;

  for (guint i = 0; i < stops->len; i++)
    {
      GtkWidget *speaker = speaker_of (g_ptr_array_index (stops, i));
      g_autofree char *name = pd_test_a11y_name (speaker);
      g_autofree char *role = g_enum_to_string (GTK_TYPE_ACCESSIBLE_ROLE,
                                                gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (speaker)));

      g_test_message ("%s: Tab stop %u, %s (%s): “%s”", where, i, G_OBJECT_TYPE_NAME (speaker), role, name);
      /* "" over AT-SPI; GTK_A11Y=test gives the class of the empty label. */
      if (*name == '\0' || g_str_has_prefix (name, "Gtk") || g_str_has_prefix (name, "Adw"))
        n_unnamed++;
    }
  *n_stops = stops->len;
  return n_unnamed;
}

/* An expanded profile: every Tab stop in it named ("[list item] ''" was
 * the row holding Remove Profile). */
static void
check_profile_stops (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  GtkWindow *dialog;
  guint n_stops = 0;
  guint n_unnamed;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  dialog = pd_test_a11y_open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  show_page (dialog, "Providers");
  g_assert_cmpuint (expand_profiles (dialog), >, 0);
  n_unnamed = count_unnamed_stops (dialog, "Preferences, Providers, profiles open", &n_stops);
  /* Each profile's Name, Provider, Base URL, Model, variable, key. */
  g_assert_cmpuint (n_stops, >, 6);
  g_assert_cmpuint (n_unnamed, ==, 0);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Preferences, Providers, profiles open");
  gtk_window_destroy (dialog);
}

static void
test_profile_stops (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_profile_stops, NULL), ==, 0);
}

/* A profile's Provider says which provider it is: the choice is in what a
 * reader says for the row, and follows a new choice. */
static void
assert_says_choice (AdwComboRow *row)
{
  GtkStringObject *item = adw_combo_row_get_selected_item (row);
  g_autofree char *name = pd_test_a11y_name (GTK_WIDGET (row));
  g_autofree char *description = pd_test_a11y_description (GTK_WIDGET (row));
  const char *choice;

  g_assert_true (GTK_IS_STRING_OBJECT (item));
  choice = gtk_string_object_get_string (item);
  g_test_message ("Provider: name “%s”, description “%s”, the choice “%s”", name, description, choice);
  if (strstr (name, choice) == NULL && strstr (description, choice) == NULL)
    g_error ("the Provider row says “%s”, “%s”: not its choice “%s”", name, description, choice);
}

static gboolean
is_provider_row (GtkWidget     *widget,
                 gconstpointer  data)
{
  return ADW_IS_COMBO_ROW (widget) &&
         g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), "Provider") == 0;
}

static void
check_provider_value (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  GtkWindow *dialog;
  AdwComboRow *row;
  guint n_choices;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  dialog = pd_test_a11y_open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  show_page (dialog, "Providers");
  expand_profiles (dialog);
  row = ADW_COMBO_ROW (pd_test_find_first (GTK_WIDGET (dialog), is_provider_row, NULL));
  g_assert_nonnull (row);
  assert_says_choice (row);
  n_choices = g_list_model_get_n_items (adw_combo_row_get_model (row));
  g_assert_cmpuint (n_choices, >, 1);
  adw_combo_row_set_selected (row, (adw_combo_row_get_selected (row) + 1) % n_choices);
  pd_test_flush (GTK_WIDGET (dialog));
  assert_says_choice (row);
  gtk_window_destroy (dialog);
}

static void
test_provider_value (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_provider_value, NULL), ==, 0);
}

/* The row of a field (a number field, New Session's folder button) is no
 * Tab stop of its own; the field is one, said by the row's title. */
static guint
check_field_rows (GtkWindow  *dialog,
                  GType       field_type,
                  const char *where)
{
  g_autoptr(GPtrArray) stops = pd_test_a11y_tab_stops (dialog);
  g_autoptr(GPtrArray) fields = g_ptr_array_new ();
  guint n = 0;

  pd_test_collect (GTK_WIDGET (dialog), field_type, fields);
  for (guint i = 0; i < fields->len; i++)
    {
      GtkWidget *field = g_ptr_array_index (fields, i);
      GtkWidget *row = gtk_widget_get_ancestor (field, ADW_TYPE_ACTION_ROW);
      g_autofree char *title = NULL;
      g_autofree char *name = NULL;
      gboolean field_stop = FALSE;

      if (row == NULL || !gtk_widget_get_mapped (field) || ADW_IS_COMBO_ROW (row))
        continue;
      if (field_type == GTK_TYPE_BUTTON && adw_action_row_get_activatable_widget (ADW_ACTION_ROW (row)) != field)
        continue;
      n++;
      title = plain (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
      name = pd_test_a11y_name (field);
      for (guint j = 0; j < stops->len; j++)
        {
          GtkWidget *stop = g_ptr_array_index (stops, j);

          if (stop == field || gtk_widget_is_ancestor (stop, field))
            field_stop = TRUE;
        }
      g_test_message ("%s: “%s”: the row is %s Tab stop, its %s %s, named “%s”", where, title,
                      g_ptr_array_find (stops, row, NULL) ? "a" : "no", G_OBJECT_TYPE_NAME (field),
                      field_stop ? "is one" : "is none", name);
      if (g_ptr_array_find (stops, row, NULL))
        g_error ("%s: the row “%s” is a Tab stop before its field", where, title);
      g_assert_true (field_stop);
      g_assert_cmpstr (name, ==, title);
    }
  return n;
}

static void
check_field_stops (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  dialog = pd_test_a11y_open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  /* Working Directory. */
  g_assert_cmpuint (check_field_rows (dialog, GTK_TYPE_BUTTON, "New Session"), ==, 1);
  gtk_window_destroy (dialog);

  dialog = pd_test_a11y_open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  show_page (dialog, "General");
  /* While a Run Is Going On, While Idle, Show Sessions Changed in the Last. */
  g_assert_cmpuint (check_field_rows (dialog, GTK_TYPE_SPIN_BUTTON, "Preferences, General"), ==, 3);
  show_page (dialog, "Alerts");
  /* Stalled After. */
  g_assert_cmpuint (check_field_rows (dialog, GTK_TYPE_SPIN_BUTTON, "Preferences, Alerts"), ==, 1);
  gtk_window_destroy (dialog);
}

static void
test_field_stops (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_field_stops, NULL), ==, 0);
}

/* A switch row's subtitle is its switch's own description, what a reader
 * speaks (the relation to the subtitle libadwaita gives was not spoken). */
static guint
check_switch_descriptions (GtkWindow  *dialog,
                           const char *where)
{
  g_autoptr(GPtrArray) switches = g_ptr_array_new ();
  guint n = 0;

  pd_test_collect (GTK_WIDGET (dialog), GTK_TYPE_SWITCH, switches);
  for (guint i = 0; i < switches->len; i++)
    {
      GtkWidget *toggle = g_ptr_array_index (switches, i);
      GtkWidget *row = gtk_widget_get_ancestor (toggle, ADW_TYPE_ACTION_ROW);
      g_autofree char *subtitle = NULL;
      g_autofree char *description = NULL;

      /* (An expander's own switch is hidden.) */
      if (row == NULL || !gtk_widget_get_visible (toggle) || adw_action_row_get_subtitle (ADW_ACTION_ROW (row)) == NULL ||
          *adw_action_row_get_subtitle (ADW_ACTION_ROW (row)) == '\0')
        continue;
      n++;
      subtitle = plain (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
      description = own_property (toggle, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
      g_test_message ("%s: the switch “%s” is described “%s”", where,
                      adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), description);
      g_assert_cmpstr (description, ==, subtitle);
    }
  return n;
}

static void
check_switch_rows (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  GtkWindow *dialog;
  guint n;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  dialog = pd_test_a11y_open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  n = check_switch_descriptions (dialog, "Preferences");
  /* Privacy's two and the Alerts page's. */
  g_assert_cmpuint (n, >=, 2);
  gtk_window_destroy (dialog);

  dialog = pd_test_a11y_open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  /* Planning and Start in Plan Mode. */
  g_assert_cmpuint (check_switch_descriptions (dialog, "New Session"), ==, 2);
  gtk_window_destroy (dialog);
}

static void
test_switch_descriptions (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_switch_rows, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/rows/history-large-text", test_history_large_text);
  g_test_add_func ("/pd/ui/a11y/rows/profile-stops", test_profile_stops);
  g_test_add_func ("/pd/ui/a11y/rows/provider-value", test_provider_value);
  g_test_add_func ("/pd/ui/a11y/rows/field-stops", test_field_stops);
  g_test_add_func ("/pd/ui/a11y/rows/switch-descriptions", test_switch_descriptions);

  return g_test_run ();
}
