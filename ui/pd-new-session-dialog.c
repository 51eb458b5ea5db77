/* pd-new-session-dialog.c: what a new run needs to know
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The task, the folder the tools work in, the provider (from a profile of
 * the preferences, adjustable for this session), planning, the approval
 * policy, and whether to start in plan mode.  An API key typed here lives
 * only in the settings handed to ::start; the environment variable name,
 * the folder and the choices are remembered in GSettings.
 */
#define G_LOG_DOMAIN "pd-new-session-dialog"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "pd-choice-factory.h"
#include "pd-entry-row.h"
#include "pd-new-session-dialog.h"
#include "pd-reader-rows.h"
#include "pd-secrets.h"
#include "pd-ui-util-private.h"

static const char * const kinds[] = { "openai", "anthropic", "replay" };

struct _PdNewSessionDialog
{
  AdwWindow          parent_instance;

  GSettings         *settings;
  char              *folder;
  char              *endpoint;     /* (nullable) runs there, with its own settings */
  gboolean           focus_placed;

  GtkButton         *start_button;
  AdwPreferencesGroup *task_group;
  GtkWidget         *folder_group;
  GtkWidget         *model_group;
  GtkWidget         *planning_row;
  GtkTextView       *task_view;
  AdwActionRow      *folder_row;
  AdwComboRow       *profile_row;
  AdwComboRow       *kind_row;
  PdEntryRow        *base_url_row;
  PdEntryRow        *model_row;
  PdEntryRow        *env_row;
  PdEntryRow        *key_row;
  PdEntryRow        *replay_row;
  GtkSwitch         *planning_switch;
  AdwComboRow       *policy_row;
  GtkSwitch         *plan_mode_switch;
};

G_DEFINE_FINAL_TYPE (PdNewSessionDialog, pd_new_session_dialog, ADW_TYPE_WINDOW)

enum {
  START,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static char *
dup_task (PdNewSessionDialog *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->task_view);
  GtkTextIter start, end;
  char *text;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);

  return g_strstrip (text);
}

static guint
selected_kind (PdNewSessionDialog *self)
{
  guint kind = adw_combo_row_get_selected (self->kind_row);

  return kind < G_N_ELEMENTS (kinds) ? kind : 0;
}

static void
on_changed (PdNewSessionDialog *self)
{
  g_autofree char *task = dup_task (self);
  gboolean ready = task[0] != '\0' && self->folder != NULL;

  /* An endpoint runs in its own folder with its own engine. */
  if (self->endpoint != NULL)
    ready = task[0] != '\0';
  else if (selected_kind (self) == 2)
    ready = ready && gtk_editable_get_text (GTK_EDITABLE (self->replay_row))[0] != '\0';

  gtk_widget_set_sensitive (GTK_WIDGET (self->start_button), ready);
}

static void
pd_new_session_dialog_set_folder_path (PdNewSessionDialog *self,
                                       const char         *path)
{
  g_free (self->folder);
  self->folder = path != NULL && path[0] != '\0' ? g_strdup (path) : NULL;
  /* The subtitle of a row is markup. */
  if (self->folder != NULL)
    {
      g_autofree char *escaped = g_markup_escape_text (self->folder, -1);

      adw_action_row_set_subtitle (self->folder_row, escaped);
    }
  else
    {
      adw_action_row_set_subtitle (self->folder_row, _("None chosen"));
    }
  on_changed (self);
}

/* The profile row, shown when there are profiles; with the replay provider
 * only when the profile chosen is a replay one: New Session on Replay File
 * still said Profile "Local OpenAI-compatible" and Model "llama3.1",
 * neither of which a replay uses (tried as a new user would, nu19 #11). */
static void
profile_row_show (PdNewSessionDialog *self,
                  gboolean            replay)
{
  g_autoptr(GVariant) profiles = g_settings_get_value (self->settings, "provider-profiles");
  guint selected = adw_combo_row_get_selected (self->profile_row);
  const char *kind = NULL;

  if (selected < g_variant_n_children (profiles))
    g_variant_get_child (profiles, selected, "(&s&s&s&s&s)", NULL, &kind, NULL, NULL, NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->profile_row),
                          g_variant_n_children (profiles) > 0 && (!replay || g_strcmp0 (kind, "replay") == 0));
}

static void
on_kind_selected (PdNewSessionDialog *self)
{
  gboolean replay = selected_kind (self) == 2;

  profile_row_show (self, replay);
  gtk_widget_set_visible (GTK_WIDGET (self->model_row), !replay);
  gtk_widget_set_visible (GTK_WIDGET (self->replay_row), replay);
  gtk_widget_set_visible (GTK_WIDGET (self->env_row), !replay);
  gtk_widget_set_visible (GTK_WIDGET (self->key_row), !replay);
  gtk_widget_set_visible (GTK_WIDGET (self->base_url_row), !replay);
  on_changed (self);
}

static void
on_profile_selected (PdNewSessionDialog *self)
{
  g_autoptr(GVariant) profiles = g_settings_get_value (self->settings, "provider-profiles");
  guint selected = adw_combo_row_get_selected (self->profile_row);
  const char *name, *kind, *base_url, *model, *env;

  if (selected >= g_variant_n_children (profiles))
    return;

  g_variant_get_child (profiles, selected, "(&s&s&s&s&s)", &name, &kind, &base_url, &model, &env);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_strcmp0 (kinds[i], kind) == 0)
      adw_combo_row_set_selected (self->kind_row, i);
  gtk_editable_set_text (GTK_EDITABLE (self->base_url_row), base_url);
  gtk_editable_set_text (GTK_EDITABLE (self->model_row), model);
  gtk_editable_set_text (GTK_EDITABLE (self->env_row), env);
}

static void
on_folder_chosen (GtkNativeDialog    *chooser,
                  int                 response,
                  PdNewSessionDialog *self)
{
  g_autofree char *path = _pd_file_chooser_take_path (chooser, response);

  if (path != NULL)
    pd_new_session_dialog_set_folder_path (self, path);
  g_object_unref (self);
}

static void
on_choose_folder (PdNewSessionDialog *self)
{
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Working Directory"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                         _("_Select"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  if (self->folder != NULL)
    {
      g_autoptr(GFile) current = g_file_new_for_path (self->folder);

      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), current, NULL);
    }
  g_signal_connect (chooser, "response", G_CALLBACK (on_folder_chosen), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
on_recording_chosen (GtkNativeDialog    *chooser,
                     int                 response,
                     PdNewSessionDialog *self)
{
  g_autofree char *path = _pd_file_chooser_take_path (chooser, response);

  if (path != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->replay_row), path);
  g_object_unref (self);
}

static void
on_choose_recording (PdNewSessionDialog *self)
{
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Recording File"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_filter_set_name (filter, _("Recordings"));
  gtk_file_filter_add_pattern (filter, "*.json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  g_signal_connect (chooser, "response", G_CALLBACK (on_recording_chosen), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static char *
entry_text (PdEntryRow *row)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));

  return text[0] != '\0' ? g_steal_pointer (&text) : NULL;
}

/**
 * pd_new_session_dialog_dup_settings:
 *
 * Returns: (transfer full): what the dialog shows, as run settings
 */
PdRunSettings *
pd_new_session_dialog_dup_settings (PdNewSessionDialog *self)
{
  PdRunSettings *settings = pd_run_settings_new ();
  guint kind = selected_kind (self);
  guint policy = adw_combo_row_get_selected (self->policy_row);

  g_free (settings->provider);
  settings->provider = g_strdup (kinds[kind]);
  settings->model = entry_text (self->model_row);
  settings->working_directory = g_strdup (self->folder);
  settings->planning = gtk_switch_get_active (self->planning_switch);
  settings->policy = policy <= PD_APPROVAL_POLICY_DENY ? (PdApprovalPolicy) policy : PD_APPROVAL_POLICY_ASK;

  if (kind == 2)
    {
      settings->replay_path = entry_text (self->replay_row);
    }
  else
    {
      settings->base_url = entry_text (self->base_url_row);
      settings->api_key_env = entry_text (self->env_row);
      settings->api_key = entry_text (self->key_row);
    }

  return settings;
}

/**
 * pd_new_session_dialog_dup_message:
 *
 * Returns: (transfer full): the first message: the task, or "/plan TASK"
 *   to start in plan mode
 */
char *
pd_new_session_dialog_dup_message (PdNewSessionDialog *self)
{
  g_autofree char *task = dup_task (self);

  if (gtk_switch_get_active (self->plan_mode_switch))
    return g_strconcat ("/plan ", task, NULL);

  return g_steal_pointer (&task);
}

static void
pd_new_session_dialog_remember (PdNewSessionDialog  *self,
                                const PdRunSettings *settings)
{
  g_autoptr(GVariant) profiles = g_settings_get_value (self->settings, "provider-profiles");
  guint selected = adw_combo_row_get_selected (self->profile_row);

  /* Never the API key. */
  g_settings_delay (self->settings);
  g_settings_set_string (self->settings, "last-working-directory", settings->working_directory);
  g_settings_set_boolean (self->settings, "last-planning", settings->planning);
  g_settings_set_string (self->settings, "last-approval-policy",
                         pd_approval_policy_to_string (settings->policy));
  if (selected < g_variant_n_children (profiles))
    {
      const char *name;

      g_variant_get_child (profiles, selected, "(&sssss)", &name, NULL, NULL, NULL, NULL);
      g_settings_set_string (self->settings, "default-profile", name);
    }
  g_settings_apply (self->settings);
}

static void
on_start_clicked (PdNewSessionDialog *self)
{
  g_autoptr(PdRunSettings) settings = pd_new_session_dialog_dup_settings (self);
  g_autofree char *message = pd_new_session_dialog_dup_message (self);

  if (!gtk_widget_get_sensitive (GTK_WIDGET (self->start_button)))
    return;

  if (self->endpoint == NULL)
    pd_new_session_dialog_remember (self, settings);
  g_signal_emit (self, signals[START], 0, settings, message);
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
pd_new_session_dialog_load (PdNewSessionDialog *self)
{
  g_autoptr(GVariant) profiles = g_settings_get_value (self->settings, "provider-profiles");
  g_autofree char *wanted = g_settings_get_string (self->settings, "default-profile");
  g_autofree char *policy = g_settings_get_string (self->settings, "last-approval-policy");
  g_autofree char *folder = g_settings_get_string (self->settings, "last-working-directory");
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  PdApprovalPolicy value = PD_APPROVAL_POLICY_ASK;
  guint selected = 0;

  for (guint i = 0; i < g_variant_n_children (profiles); i++)
    {
      const char *name;

      g_variant_get_child (profiles, i, "(&sssss)", &name, NULL, NULL, NULL, NULL);
      gtk_string_list_append (names, name);
      if (g_strcmp0 (name, wanted) == 0)
        selected = i;
    }
  adw_combo_row_set_model (self->profile_row, G_LIST_MODEL (names));
  adw_combo_row_set_selected (self->profile_row, selected);
  on_profile_selected (self);
  on_kind_selected (self);

  gtk_switch_set_active (self->planning_switch, g_settings_get_boolean (self->settings, "last-planning"));
  pd_approval_policy_from_string (policy, &value);
  adw_combo_row_set_selected (self->policy_row, value);

  if (folder[0] == '\0' || !g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      g_free (folder);
      folder = g_strdup (g_get_home_dir ());
    }
  pd_new_session_dialog_set_folder_path (self, folder);
}

static void
pd_new_session_dialog_finalize (GObject *object)
{
  PdNewSessionDialog *self = PD_NEW_SESSION_DIALOG (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->folder, g_free);
  g_clear_pointer (&self->endpoint, g_free);

  G_OBJECT_CLASS (pd_new_session_dialog_parent_class)->finalize (object);
}

static void
pd_new_session_dialog_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), PD_TYPE_NEW_SESSION_DIALOG);

  G_OBJECT_CLASS (pd_new_session_dialog_parent_class)->dispose (object);
}

/* The dialog opens on what a person came to write: the task (not on
 * Cancel, where typing went nowhere and Enter closed the dialog).  Set once
 * it is shown: the focus set while it was built made GTK 4.8 give the
 * window to a screen reader before its role was known, a "filler" with no
 * dialog role (read over AT-SPI). */
static void
pd_new_session_dialog_map (GtkWidget *widget)
{
  PdNewSessionDialog *self = PD_NEW_SESSION_DIALOG (widget);

  GTK_WIDGET_CLASS (pd_new_session_dialog_parent_class)->map (widget);
  if (!self->focus_placed)
    {
      self->focus_placed = TRUE;
      gtk_window_set_focus (GTK_WINDOW (self), GTK_WIDGET (self->task_view));
    }
}

static void
pd_new_session_dialog_class_init (PdNewSessionDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  /* Before any of its widgets is made: see _pd_a11y_quiet_classes(). */
  _pd_a11y_quiet_classes ();
  g_type_ensure (PD_TYPE_ENTRY_ROW);

  object_class->dispose = pd_new_session_dialog_dispose;
  object_class->finalize = pd_new_session_dialog_finalize;
  widget_class->map = pd_new_session_dialog_map;

  /**
   * PdNewSessionDialog::start:
   * @settings: a #PdRunSettings
   * @message: the first message
   *
   * The person asked to start the session.  The dialog closes after.
   */
  signals[START] =
    g_signal_new ("start", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, PD_TYPE_RUN_SETTINGS, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-new-session-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, start_button);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, task_view);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, folder_row);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, profile_row);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, kind_row);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, base_url_row);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, model_row);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, env_row);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, key_row);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, replay_row);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, planning_switch);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, policy_row);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, plan_mode_switch);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, task_group);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, folder_group);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, model_group);
  gtk_widget_class_bind_template_child (widget_class, PdNewSessionDialog, planning_row);
  gtk_widget_class_bind_template_callback (widget_class, on_start_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_folder);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_recording);
  gtk_widget_class_bind_template_callback (widget_class, on_profile_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_kind_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_changed);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_DIALOG);
}

/* Ctrl+Enter in the task starts, as in other GNOME text fields that send
 * (Enter makes a new line of the task; Tab to Start was the only way from
 * the keyboard, tried as a new user would). */
static gboolean
on_start_shortcut (GtkWidget *widget,
                   GVariant  *args,
                   gpointer   user_data)
{
  pd_new_session_dialog_activate_start (PD_NEW_SESSION_DIALOG (user_data));
  return TRUE;
}

static void
pd_new_session_dialog_init (PdNewSessionDialog *self)
{
  GtkEventController *keys;

  _pd_window_keep_role (GTK_WINDOW (self));
  gtk_widget_init_template (GTK_WIDGET (self));
  _pd_a11y_name_switchers (GTK_WIDGET (self));
  /* Each group's list is named by the group (one was "GtkLabel"). */
  _pd_preferences_groups_name_lists (GTK_WIDGET (self));
  _pd_images_speak (GTK_WIDGET (self));
  /* The help under "Task" describes the field: a reader heard the field
   * named "Task" and nothing of it (tried with a screen reader). */
  _pd_accessible_set_text (GTK_WIDGET (self->task_view), NULL,
                           adw_preferences_group_get_description (self->task_group));
  keys = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Return, GDK_CONTROL_MASK),
                                                          gtk_callback_action_new (on_start_shortcut, self, NULL)));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_KP_Enter, GDK_CONTROL_MASK),
                                                          gtk_callback_action_new (on_start_shortcut, self, NULL)));
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  gtk_widget_add_controller (GTK_WIDGET (self->task_view), keys);
  _pd_combo_row_choice_tooltip (self->profile_row);
  _pd_combo_row_choice_tooltip (self->kind_row);
  _pd_combo_row_choice_tooltip (self->policy_row);
  _pd_combo_row_name_choices (self->profile_row);
  _pd_combo_row_name_choices (self->kind_row);
  _pd_combo_row_name_choices (self->policy_row);
  /* One Tab stop each: the folder button (said "Working Directory", the
   * folder as its description), each switch (its subtitle described). */
  _pd_field_row_one_tab_stop (self->folder_row, adw_action_row_get_activatable_widget (self->folder_row));
  _pd_switch_row_one_tab_stop (ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (self->planning_switch),
                                                                        ADW_TYPE_ACTION_ROW)));
  _pd_switch_row_one_tab_stop (ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (self->plan_mode_switch),
                                                                        ADW_TYPE_ACTION_ROW)));
  /* A key pasted as the variable's name (or left there in a profile
   * without a keyring) goes to the masked row, for this session only. */
  pd_secrets_guard_variable_row (GTK_EDITABLE (self->env_row), GTK_EDITABLE (self->key_row));

  self->settings = g_settings_new (APP_ID);
  g_signal_connect_object (gtk_text_view_get_buffer (self->task_view), "changed",
                           G_CALLBACK (on_changed), self, G_CONNECT_SWAPPED);
  pd_new_session_dialog_load (self);
}

/* One em of @widget's font in pixels: its size at the text scale (the
 * resolution gtk-xft-dpi gives, 1.5× with Large Text). */
static double
font_em (GtkWidget *widget)
{
  PangoContext *context = gtk_widget_get_pango_context (widget);
  const PangoFontDescription *font = pango_context_get_font_description (context);
  double size = font != NULL ? pango_font_description_get_size (font) / (double) PANGO_SCALE : 0;
  double dpi = pango_cairo_context_get_resolution (context);

  if (size <= 0)
    size = 11;
  if (font != NULL && pango_font_description_get_size_is_absolute (font))
    return size;
  return size * (dpi > 0 ? dpi : 96) / 72;
}

/* The first widget of @type below @widget, or %NULL. */
static GtkWidget *
find_child (GtkWidget *widget,
            GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = G_TYPE_CHECK_INSTANCE_TYPE (child, type) ? child : find_child (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The title label of @row (libadwaita's, with the "title" class). */
static GtkWidget *
row_title (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "title"))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = row_title (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Each text field below @widget asks for 24 characters (its minimum
 * stays PdEntryRow's 6): beside a long title that asks for all of its
 * own, the field was given only what was left. Its title wraps between
 * words only: at 360 px the field's wish broke "Environ-ment". */
static void
fields_ask_for_room (GtkWidget *widget)
{
  if (PD_IS_ENTRY_ROW (widget))
    {
      GtkWidget *title = row_title (widget);

      gtk_editable_set_max_width_chars (GTK_EDITABLE (pd_entry_row_get_entry (PD_ENTRY_ROW (widget))), 24);
      if (title != NULL)
        gtk_label_set_wrap_mode (GTK_LABEL (title), PANGO_WRAP_WORD);
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    fields_ask_for_room (child);
}

/* The dialog's widths in ems of its font, not pixels: at 1.5× text it
 * stayed 550 px and its page's clamp 600 px, so each field shrank to a
 * few characters beside its wrapped title ("http://127.0.0.1:11"; tried
 * at 1.5× text as a new user would). Returns the default width. */
static int
grow_with_text (PdNewSessionDialog *self)
{
  double em = font_em (GTK_WIDGET (self));
  GtkWidget *clamp = find_child (GTK_WIDGET (self), ADW_TYPE_CLAMP);

  fields_ask_for_room (GTK_WIDGET (self));

  /* libadwaita's 600 and 400 px, as ems of a 10 pt font at 96 dpi. */
  if (clamp != NULL)
    {
      adw_clamp_set_maximum_size (ADW_CLAMP (clamp), (int) ceil (45 * em));
      adw_clamp_set_tightening_threshold (ADW_CLAMP (clamp), (int) ceil (30 * em));
    }
  return (int) ceil (42 * em);
}

/**
 * pd_new_session_dialog_new:
 * @parent: (nullable): the window the session will run in
 *
 * Returns: (transfer full): a new dialog, not yet presented
 */
PdNewSessionDialog *
pd_new_session_dialog_new (GtkWindow *parent)
{
  PdNewSessionDialog *self = g_object_new (PD_TYPE_NEW_SESSION_DIALOG,
                                           "transient-for", parent,
                                           NULL);
  int width, height;

  /* On a narrow or short window (a phone) the dialog fits over it. */
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  width = MAX (width, grow_with_text (self));
  if (parent != NULL && gtk_widget_get_width (GTK_WIDGET (parent)) > 0)
    gtk_window_set_default_size (GTK_WINDOW (self),
                                 MIN (width, gtk_widget_get_width (GTK_WIDGET (parent))),
                                 MIN (height, gtk_widget_get_height (GTK_WIDGET (parent))));

  return self;
}

/**
 * pd_new_session_dialog_set_endpoint:
 * @endpoint: the base URL of the `serve` endpoint the session will run on
 *
 * The session runs there, with the server's engine, folder, limits and
 * approval policy: the dialog asks for the task (and plan mode) only, and
 * the settings it hands to ::start are not used.
 */
void
pd_new_session_dialog_set_endpoint (PdNewSessionDialog *self,
                                    const char         *endpoint)
{
  g_autofree char *description = NULL;

  g_return_if_fail (PD_IS_NEW_SESSION_DIALOG (self));
  g_return_if_fail (endpoint != NULL);

  g_free (self->endpoint);
  self->endpoint = g_strdup (endpoint);
  gtk_widget_set_visible (self->folder_group, FALSE);
  gtk_widget_set_visible (self->model_group, FALSE);
  gtk_widget_set_visible (self->planning_row, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->policy_row), FALSE);
  /* Translators: %s is the address of a server, such as http://127.0.0.1:8080 */
  description = g_strdup_printf (_("What the agent should do, in your words. It runs on %s, in that server’s folder with its model, and asks you here before it changes anything."),
                                 endpoint);
  /* The description of a group is markup. */
  {
    g_autofree char *escaped = g_markup_escape_text (description, -1);

    adw_preferences_group_set_description (self->task_group, escaped);
  }
  _pd_accessible_set_text (GTK_WIDGET (self->task_view), NULL, description);
  on_changed (self);
}

/* Tests and screenshots fill the dialog like a person would. */
void
pd_new_session_dialog_set_task (PdNewSessionDialog *self,
                                const char         *task)
{
  g_return_if_fail (PD_IS_NEW_SESSION_DIALOG (self));

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->task_view), task, -1);
}

void
pd_new_session_dialog_set_folder (PdNewSessionDialog *self,
                                  const char         *folder)
{
  g_return_if_fail (PD_IS_NEW_SESSION_DIALOG (self));

  pd_new_session_dialog_set_folder_path (self, folder);
}

/* Presses Start; FALSE when the dialog is not ready to start. */
gboolean
pd_new_session_dialog_activate_start (PdNewSessionDialog *self)
{
  g_return_val_if_fail (PD_IS_NEW_SESSION_DIALOG (self), FALSE);

  if (!gtk_widget_get_sensitive (GTK_WIDGET (self->start_button)))
    return FALSE;

  on_start_clicked (self);
  return TRUE;
}
