/* pd-preferences-window.c: provider profiles, refresh intervals, privacy
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Everything is stored in GSettings as it is edited.  A profile is a name,
 * a kind (openai, anthropic, replay), a base URL, a model and the name of
 * the environment variable holding the API key; never the key itself.  A
 * key typed in a profile goes to the keyring (pd-secrets), for the
 * profile's provider and base URL, when its row's Apply is pressed.
 */
#define G_LOG_DOMAIN "pd-preferences-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-choice-factory.h"
#include "pd-entry-row.h"
#include "pd-notification-page.h"
#include "pd-preferences-window.h"
#include "pd-reader-rows.h"
#include "pd-secrets.h"
#include "pd-sources-page.h"
#include "pd-ui-util-private.h"

static const char * const kinds[] = { "openai", "anthropic", "replay" };

typedef struct
{
  AdwExpanderRow *expander;
  PdEntryRow     *name;
  AdwComboRow    *kind;
  PdEntryRow     *base_url;
  PdEntryRow     *model;
  PdEntryRow     *env;
  PdEntryRow     *key;     /* a masked PdEntryRow; its text never goes to GSettings */
  GtkWidget      *remove;
} ProfileRows;

struct _PdPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  GSettings            *settings;
  GPtrArray            *profiles;   /* (element-type ProfileRows) */

  AdwPreferencesGroup  *profiles_group;
  GtkSpinButton        *running_spin;
  GtkSpinButton        *idle_spin;
  GtkSpinButton        *overview_spin;
  GtkSwitch            *read_plans_switch;
  GtkSwitch            *read_sessions_switch;
};

G_DEFINE_FINAL_TYPE (PdPreferencesWindow, pd_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

static const char *
kind_label (guint kind)
{
  switch (kind)
    {
    case 1: return _("Anthropic");
    case 2: return _("Replay File (Demo)");
    default: return _("OpenAI-compatible");
    }
}

/* GTK 4.8 names a mnemonic button by its raw label and by its label both
 * ("_Remove Profile Remove Profile"), and a name given before the button
 * is in the window does not always last: it is named once shown, and
 * whenever its profile's name changes, by that name (update_expander()). */
static void
name_remove_button (GtkWidget *remove)
{
  const char *name = g_object_get_data (G_OBJECT (remove), "pd-remove-name");

  _pd_accessible_set_text (remove, name != NULL ? name : _("Remove Profile"), NULL);
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
}

static void
update_expander (ProfileRows *rows)
{
  g_autofree char *title = g_markup_escape_text (gtk_editable_get_text (GTK_EDITABLE (rows->name)), -1);
  g_autofree char *model = g_markup_escape_text (gtk_editable_get_text (GTK_EDITABLE (rows->model)), -1);
  g_autofree char *subtitle = NULL;
  guint kind = adw_combo_row_get_selected (rows->kind);

  /* Titles and subtitles of rows are markup. */
  subtitle = model[0] != '\0'
    ? g_strdup_printf ("%s · %s", kind_label (kind), model)
    : g_strdup (kind_label (kind));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (rows->expander), title[0] ? title : _("Unnamed"));
  /* Each profile's Remove says which profile: three alike were "Remove
   * Profile" to a screen reader. */
  if (rows->remove != NULL)
    {
      const char *name = gtk_editable_get_text (GTK_EDITABLE (rows->name));

      GtkWidget *remove_row = gtk_widget_get_ancestor (rows->remove, ADW_TYPE_ACTION_ROW);

      g_object_set_data_full (G_OBJECT (rows->remove), "pd-remove-name",
                              /* Translators: the accessible name of a profile's Remove button; %s is the profile's name */
                              g_strdup_printf (_("Remove Profile “%s”"), name[0] ? name : _("Unnamed")),
                              g_free);
      name_remove_button (rows->remove);
      /* Its row, untitled, was met as "GtkLabel" (its empty title) by a
       * reader browsing object by object: named as its button. */
      if (remove_row != NULL)
        {
          gtk_accessible_reset_relation (GTK_ACCESSIBLE (remove_row), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
          _pd_accessible_set_text (remove_row, g_object_get_data (G_OBJECT (rows->remove), "pd-remove-name"), NULL);
        }
    }
  /* A replay plays a file: no key. */
  gtk_widget_set_visible (GTK_WIDGET (rows->key), kind != 2);
  adw_expander_row_set_subtitle (rows->expander, subtitle);
}

static void
pd_preferences_window_save_profiles (PdPreferencesWindow *self)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sssss)"));
  for (guint i = 0; i < self->profiles->len; i++)
    {
      ProfileRows *rows = g_ptr_array_index (self->profiles, i);
      guint kind = adw_combo_row_get_selected (rows->kind);

      update_expander (rows);
      g_variant_builder_add (&builder, "(sssss)",
                             gtk_editable_get_text (GTK_EDITABLE (rows->name)),
                             kinds[kind < G_N_ELEMENTS (kinds) ? kind : 0],
                             gtk_editable_get_text (GTK_EDITABLE (rows->base_url)),
                             gtk_editable_get_text (GTK_EDITABLE (rows->model)),
                             gtk_editable_get_text (GTK_EDITABLE (rows->env)));
    }
  g_settings_set_value (self->settings, "provider-profiles", g_variant_builder_end (&builder));
}

static void pd_preferences_window_load_profiles (PdPreferencesWindow *self);

static void
on_remove_profile (GtkButton           *button,
                   PdPreferencesWindow *self)
{
  AdwExpanderRow *expander = g_object_get_data (G_OBJECT (button), "expander");

  for (guint i = 0; i < self->profiles->len; i++)
    {
      ProfileRows *rows = g_ptr_array_index (self->profiles, i);

      if (rows->expander == expander)
        {
          adw_preferences_group_remove (self->profiles_group, GTK_WIDGET (expander));
          g_ptr_array_remove_index (self->profiles, i);
          break;
        }
    }
  pd_preferences_window_save_profiles (self);
}

static ProfileRows *
rows_of_key (PdPreferencesWindow *self,
             PdEntryRow          *key)
{
  for (guint i = 0; i < self->profiles->len; i++)
    {
      ProfileRows *rows = g_ptr_array_index (self->profiles, i);

      if (rows->key == key)
        return rows;
    }
  return NULL;
}

static const char *
rows_kind (ProfileRows *rows)
{
  guint kind = adw_combo_row_get_selected (rows->kind);

  return kinds[kind < G_N_ELEMENTS (kinds) ? kind : 0];
}

typedef enum
{
  KEY_STATE_NONE,
  KEY_STATE_KEYRING,
  KEY_STATE_SESSION,   /* no keyring took it: in memory until the app quits */
} KeyState;

static void
set_key_state (PdEntryRow *key,
               KeyState     state)
{
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (key),
                                 state == KEY_STATE_KEYRING ? _("API Key (Kept in the Keyring)")
                                 : state == KEY_STATE_SESSION ? _("API Key (Kept Only Until Plandeck Quits)")
                                 : _("API Key"));
}

/* A look in the keyring for a key row; only the newest one of a row
 * answers (one per edit of its base URL). */
typedef struct
{
  GWeakRef key;
  guint    serial;
} KeyQuery;

static void
on_key_state (GObject      *object,
              GAsyncResult *result,
              gpointer      data)
{
  KeyQuery *query = data;
  g_autoptr(PdEntryRow) key = g_weak_ref_get (&query->key);
  g_autoptr(GError) error = NULL;
  gboolean session_only = FALSE;
  gboolean stored = pd_secrets_has_provider_key_finish (result, &session_only, &error);

  if (key != NULL &&
      GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (key), "pd-key-query")) == query->serial)
    set_key_state (key, !stored ? KEY_STATE_NONE : session_only ? KEY_STATE_SESSION : KEY_STATE_KEYRING);
  g_weak_ref_clear (&query->key);
  g_free (query);
}

/* The key's row says whether a key is stored for the profile's endpoint
 * (its provider and base URL, looked up again when either changes: the
 * row went on saying "Kept in the Keyring" of another address, tried as
 * a new user would); the key itself is not read into the window, and a
 * locked keyring is not asked to unlock for it (no prompt on opening the
 * preferences). */
static void
pd_preferences_window_show_key_state (PdPreferencesWindow *self,
                                      ProfileRows         *rows)
{
  KeyQuery *query;
  const char *kind = rows_kind (rows);
  guint serial = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (rows->key), "pd-key-query")) + 1;

  /* An answer on its way for the old address is dropped. */
  g_object_set_data (G_OBJECT (rows->key), "pd-key-query", GUINT_TO_POINTER (serial));
  if (g_strcmp0 (kind, "replay") == 0)
    {
      gtk_widget_set_visible (GTK_WIDGET (rows->key), FALSE);
      return;
    }
  query = g_new0 (KeyQuery, 1);
  g_weak_ref_init (&query->key, rows->key);
  query->serial = serial;
  pd_secrets_has_provider_key_async (kind, gtk_editable_get_text (GTK_EDITABLE (rows->base_url)),
                                     on_key_state, query);
}

static void
on_endpoint_changed (GObject             *row,
                     PdPreferencesWindow *self)
{
  for (guint i = 0; i < self->profiles->len; i++)
    {
      ProfileRows *rows = g_ptr_array_index (self->profiles, i);

      if (G_OBJECT (rows->base_url) == row || G_OBJECT (rows->kind) == row)
        pd_preferences_window_show_key_state (self, rows);
    }
}

static void
on_kind_changed (GObject             *row,
                 GParamSpec          *pspec,
                 PdPreferencesWindow *self)
{
  on_endpoint_changed (row, self);
}

typedef struct
{
  GWeakRef  window;
  GWeakRef  key;
  gboolean  cleared;
} KeyStore;

static void
on_key_stored (GObject      *object,
               GAsyncResult *result,
               gpointer      data)
{
  KeyStore *store = data;
  g_autoptr(PdPreferencesWindow) self = g_weak_ref_get (&store->window);
  g_autoptr(PdEntryRow) key = g_weak_ref_get (&store->key);
  g_autoptr(GError) error = NULL;
  const char *text;

  /* The keyring's own words (a D-Bus error, cut off in a toast) go to the
   * log; the toast says in full what became of the key. */
  if (!pd_secrets_store_provider_key_finish (result, &error))
    {
      g_message ("The keyring did not take the API key: %s", error->message);
      text = store->cleared ? _("No keyring: no API key is kept")
                            : _("No keyring: the key is kept until Plandeck quits");
    }
  else if (store->cleared)
    text = _("The API key was removed from the keyring");
  else
    text = _("The API key is kept in the keyring");

  /* Not kept by a keyring, the key is kept in memory for this session
   * (pd_secrets_store_provider_key_async()): the row says it will not be
   * remembered, and lets it go like a kept one. */
  if (key != NULL)
    set_key_state (key, store->cleared ? KEY_STATE_NONE
                        : error == NULL ? KEY_STATE_KEYRING : KEY_STATE_SESSION);
  if (key != NULL && !store->cleared)
    {
      /* Once kept, the key leaves the row: its show-password button would
       * reveal it to anyone at the screen.  The row's title says it is
       * stored; clearing is no edit to apply (an empty Apply removes it). */
      pd_entry_row_set_show_apply_button (key, FALSE);
      gtk_editable_set_text (GTK_EDITABLE (key), "");
      pd_entry_row_set_show_apply_button (key, TRUE);
    }
  if (self != NULL)
    _pd_toast_add_text (GTK_WIDGET (self), text);
  g_weak_ref_clear (&store->window);
  g_weak_ref_clear (&store->key);
  g_free (store);
}

/* Apply: the typed key goes to the keyring for this provider and base URL;
 * an empty one removes the key stored there. */
static void
on_key_apply (PdEntryRow          *key,
              PdPreferencesWindow *self)
{
  ProfileRows *rows = rows_of_key (self, key);
  g_autofree char *text = NULL;
  KeyStore *store;

  if (rows == NULL)
    return;
  text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (key))));
  store = g_new0 (KeyStore, 1);
  g_weak_ref_init (&store->window, self);
  g_weak_ref_init (&store->key, key);
  store->cleared = text[0] == '\0';
  pd_secrets_store_provider_key_async (rows_kind (rows), gtk_editable_get_text (GTK_EDITABLE (rows->base_url)),
                                       text, on_key_stored, store);
  memset (text, 0, strlen (text));
}

static PdEntryRow *
add_entry (ProfileRows *rows,
           const char  *title,
           const char  *text)
{
  GtkWidget *entry = pd_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (entry), title);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  adw_expander_row_add_row (rows->expander, entry);

  return PD_ENTRY_ROW (entry);
}


static void
pd_preferences_window_add_profile_rows (PdPreferencesWindow *self,
                                        const char          *name,
                                        const char          *kind,
                                        const char          *base_url,
                                        const char          *model,
                                        const char          *env)
{
  ProfileRows *rows = g_new0 (ProfileRows, 1);
  g_autoptr(GtkStringList) kind_names = gtk_string_list_new (NULL);
  GtkWidget *remove_row;
  GtkWidget *remove;

  rows->expander = ADW_EXPANDER_ROW (adw_expander_row_new ());
  rows->name = add_entry (rows, _("Name"), name);

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    gtk_string_list_append (kind_names, kind_label (i));
  rows->kind = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (rows->kind), _("Provider"));
  adw_combo_row_set_model (rows->kind, G_LIST_MODEL (kind_names));
  _pd_combo_row_name_choices (rows->kind);
  /* The provider chosen is the row's description: a reader said only
   * "Provider". */
  _pd_combo_row_choice_tooltip (rows->kind);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_strcmp0 (kinds[i], kind) == 0)
      adw_combo_row_set_selected (rows->kind, i);
  adw_expander_row_add_row (rows->expander, GTK_WIDGET (rows->kind));

  rows->base_url = add_entry (rows, _("Base URL (Empty: the Provider’s Default)"), base_url);
  rows->model = add_entry (rows, _("Model"), model);
  rows->env = add_entry (rows, _("API Key Environment Variable"), env);

  rows->key = PD_ENTRY_ROW (pd_entry_row_new_password ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (rows->key), _("API Key"));
  pd_entry_row_set_show_apply_button (rows->key, TRUE);
  g_object_set_data (G_OBJECT (rows->key), "expander", rows->expander);
  g_signal_connect (rows->key, "apply", G_CALLBACK (on_key_apply), self);
  adw_expander_row_add_row (rows->expander, GTK_WIDGET (rows->key));
  /* Before the handler that saves the profile: a key pasted as the
   * variable's name never reaches GSettings, nor stays in clear. */
  pd_secrets_guard_variable_row (GTK_EDITABLE (rows->env), GTK_EDITABLE (rows->key));

  remove_row = adw_action_row_new ();
  remove = gtk_button_new_with_mnemonic (_("_Remove Profile"));
  g_signal_connect (remove, "map", G_CALLBACK (name_remove_button), NULL);
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (remove, "destructive-action");
  g_object_set_data (G_OBJECT (remove), "expander", rows->expander);
  /* Named by name_remove_button(), not by its mnemonic label. */
  g_object_set_data (G_OBJECT (remove), "pd-own-name", GINT_TO_POINTER (TRUE));
  rows->remove = remove;
  g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_profile), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (remove_row), remove);
  /* Untitled, the row was a Tab stop a reader called "list item" and
   * nothing else: its button alone takes the focus. */
  gtk_widget_set_focusable (remove_row, FALSE);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (remove_row), FALSE);
  adw_expander_row_add_row (rows->expander, remove_row);

  update_expander (rows);
  _pd_expander_row_for_readers (rows->expander);
  _pd_images_speak (GTK_WIDGET (rows->expander));
  g_ptr_array_add (self->profiles, rows);
  pd_preferences_window_show_key_state (self, rows);
  adw_preferences_group_add (self->profiles_group, GTK_WIDGET (rows->expander));

  g_signal_connect_swapped (rows->name, "changed", G_CALLBACK (pd_preferences_window_save_profiles), self);
  g_signal_connect_swapped (rows->base_url, "changed", G_CALLBACK (pd_preferences_window_save_profiles), self);
  g_signal_connect_swapped (rows->model, "changed", G_CALLBACK (pd_preferences_window_save_profiles), self);
  g_signal_connect_swapped (rows->env, "changed", G_CALLBACK (pd_preferences_window_save_profiles), self);
  g_signal_connect_swapped (rows->kind, "notify::selected", G_CALLBACK (pd_preferences_window_save_profiles), self);
  /* After saving: the keyring is asked about what the profile now names. */
  g_signal_connect (rows->base_url, "changed", G_CALLBACK (on_endpoint_changed), self);
  g_signal_connect (rows->kind, "notify::selected", G_CALLBACK (on_kind_changed), self);
}

static void
pd_preferences_window_load_profiles (PdPreferencesWindow *self)
{
  g_autoptr(GVariant) profiles = g_settings_get_value (self->settings, "provider-profiles");
  GVariantIter iter;
  const char *name, *kind, *base_url, *model, *env;

  g_variant_iter_init (&iter, profiles);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &name, &kind, &base_url, &model, &env))
    pd_preferences_window_add_profile_rows (self, name, kind, base_url, model, env);
}

static void
on_add_profile (PdPreferencesWindow *self)
{
  ProfileRows *rows;

  pd_preferences_window_add_profile_rows (self, _("New Profile"), "openai", "", "", "OPENAI_API_KEY");
  rows = g_ptr_array_index (self->profiles, self->profiles->len - 1);
  adw_expander_row_set_expanded (rows->expander, TRUE);
  pd_preferences_window_save_profiles (self);
}

/* GSettings holds unsigned milliseconds; the spin buttons hold doubles. */
static gboolean
get_ms (GValue   *value,
        GVariant *variant,
        gpointer  user_data)
{
  g_value_set_double (value, g_variant_get_uint32 (variant));
  return TRUE;
}

static GVariant *
set_ms (const GValue       *value,
        const GVariantType *expected_type,
        gpointer            user_data)
{
  return g_variant_new_uint32 ((guint32) g_value_get_double (value));
}

static void
pd_preferences_window_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), PD_TYPE_PREFERENCES_WINDOW);

  G_OBJECT_CLASS (pd_preferences_window_parent_class)->dispose (object);
}

static void
pd_preferences_window_finalize (GObject *object)
{
  PdPreferencesWindow *self = PD_PREFERENCES_WINDOW (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->profiles, g_ptr_array_unref);

  G_OBJECT_CLASS (pd_preferences_window_parent_class)->finalize (object);
}

static void
pd_preferences_window_class_init (PdPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  /* Before any of its widgets is made: see _pd_a11y_quiet_classes(). */
  _pd_a11y_quiet_classes ();
  object_class->dispose = pd_preferences_window_dispose;
  object_class->finalize = pd_preferences_window_finalize;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PdPreferencesWindow, profiles_group);
  gtk_widget_class_bind_template_child (widget_class, PdPreferencesWindow, running_spin);
  gtk_widget_class_bind_template_child (widget_class, PdPreferencesWindow, overview_spin);
  gtk_widget_class_bind_template_child (widget_class, PdPreferencesWindow, idle_spin);
  gtk_widget_class_bind_template_child (widget_class, PdPreferencesWindow, read_plans_switch);
  gtk_widget_class_bind_template_child (widget_class, PdPreferencesWindow, read_sessions_switch);
  gtk_widget_class_bind_template_callback (widget_class, on_add_profile);
}

/* libadwaita 1.2's search results, a list in a page of the window's own
 * stack, are in the tree a reader browses while no search runs, named
 * "GtkListBox" (read over AT-SPI). */
static void
name_search_results (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_STACK (widget) &&
          g_strcmp0 (gtk_stack_page_get_name (gtk_stack_get_page (GTK_STACK (widget), child)), "results") == 0)
        _pd_list_boxes_name (child, _("Search Results"));
      name_search_results (child);
    }
}

/* A number field is its row's one Tab stop, said by the row's title, its
 * subtitle (the unit) as its description: labelled by the row, it was
 * "GtkSpinButton" to a screen reader (AdwActionRow 1.2 has no accessible
 * label of its own to lend), and the row was a Tab stop before it. */
static void
name_spin_by_row (GtkSpinButton *spin)
{
  GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (spin), ADW_TYPE_ACTION_ROW);

  if (row != NULL)
    _pd_field_row_one_tab_stop (ADW_ACTION_ROW (row), GTK_WIDGET (spin));
}

/* A Privacy switch says its row's subtitle. */
static void
describe_switch_by_row (GtkSwitch *toggle)
{
  _pd_switch_row_one_tab_stop (ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (toggle), ADW_TYPE_ACTION_ROW)));
}

static GtkWidget *
find_widget_of_type (GtkWidget *widget,
                     GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget_of_type (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The page switcher's tabs are made once it is shown: their icons too. */
static void
on_map_images (GtkWidget *widget)
{
  _pd_images_speak (widget);
}

static void
pd_preferences_window_init (PdPreferencesWindow *self)
{
  GtkWidget *bar;

  _pd_window_keep_role (GTK_WINDOW (self));
  gtk_widget_init_template (GTK_WIDGET (self));
  _pd_a11y_name_switchers (GTK_WIDGET (self));
  /* Each group's list is named by the group (it was "GtkListBox"). */
  _pd_preferences_groups_name_lists (GTK_WIDGET (self));
  _pd_images_speak (GTK_WIDGET (self));
  g_signal_connect (self, "map", G_CALLBACK (on_map_images), NULL);
  name_search_results (GTK_WIDGET (self));
  name_spin_by_row (self->running_spin);
  name_spin_by_row (self->idle_spin);
  name_spin_by_row (self->overview_spin);
  describe_switch_by_row (self->read_plans_switch);
  describe_switch_by_row (self->read_sessions_switch);
  /* libadwaita's search button: named by its tooltip. */
  _pd_name_tooltip_buttons (GTK_WIDGET (self));
  /* Its search field said "GtkSearchEntry". */
  _pd_accessible_set_text (find_widget_of_type (GTK_WIDGET (self), GTK_TYPE_SEARCH_ENTRY),
                           _("Search Preferences"), NULL);

  self->settings = g_settings_new (APP_ID);
  self->profiles = g_ptr_array_new_with_free_func (g_free);

  g_settings_bind_with_mapping (self->settings, "poll-running-ms", self->running_spin, "value",
                                G_SETTINGS_BIND_DEFAULT, get_ms, set_ms, NULL, NULL);
  g_settings_bind_with_mapping (self->settings, "poll-idle-ms", self->idle_spin, "value",
                                G_SETTINGS_BIND_DEFAULT, get_ms, set_ms, NULL, NULL);
  g_settings_bind_with_mapping (self->settings, "overview-active-minutes", self->overview_spin, "value",
                                G_SETTINGS_BIND_DEFAULT, get_ms, set_ms, NULL, NULL);
  g_settings_bind (self->settings, "read-agent-plans", self->read_plans_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "read-agent-sessions-at-start", self->read_sessions_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  /* Sessions are not read while reading agents' plans is off. */
  g_settings_bind (self->settings, "read-agent-plans", self->read_sessions_switch, "sensitive",
                   G_SETTINGS_BIND_GET);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), pd_notification_page_new (self->settings));
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), pd_sources_page_new (self->settings));
  /* Narrow, the pages' tabs take the bar's whole width: at 360 px and 1.5×
   * text "Notifications" was cut to "Notifica…" (tried as a new user
   * would, with Large Text; the page is Alerts now). */
  bar = find_widget_of_type (GTK_WIDGET (self), ADW_TYPE_VIEW_SWITCHER_BAR);
  if (bar != NULL)
    _pd_widen_view_switcher_bar (ADW_VIEW_SWITCHER_BAR (bar));

  pd_preferences_window_load_profiles (self);
}

/**
 * pd_preferences_window_new:
 *
 * Returns: (transfer full): the preferences, over @parent
 */
PdPreferencesWindow *
pd_preferences_window_new (GtkWindow *parent)
{
  return g_object_new (PD_TYPE_PREFERENCES_WINDOW,
                       "transient-for", parent,
                       NULL);
}

/* The expander row of the endpoint at @url under @widget, or NULL. */
static GtkWidget *
endpoint_row (GtkWidget  *widget,
              const char *url)
{
  if (ADW_IS_EXPANDER_ROW (widget) && g_strcmp0 (g_object_get_data (G_OBJECT (widget), "pd-source-url"), url) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = endpoint_row (child, url);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/**
 * pd_preferences_window_show_endpoint:
 * @url: an endpoint's address, as the `sources` setting spells it
 *
 * Shows Sources with the endpoint's row open and the focus in its New
 * Token: Edit in Preferences opened the page with the row closed, New
 * Token out of sight (tried as a new user would).
 */
void
pd_preferences_window_show_endpoint (PdPreferencesWindow *self,
                                     const char          *url)
{
  GtkWidget *row;

  g_return_if_fail (PD_IS_PREFERENCES_WINDOW (self));

  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (self), "sources");
  row = endpoint_row (GTK_WIDGET (self), url);
  if (row == NULL)
    return;
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  gtk_window_set_focus (GTK_WINDOW (self), g_object_get_data (G_OBJECT (row), "pd-token-row"));
}
