/* pd-test-ui.c: helpers for the ui test suite
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-test-ui"

#include "config.h"

#include <string.h>

#include "pd-checklist-view.h"
#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-now-view.h"
#include "pd-session-list.h"
#include "pd-secrets.h"
#include "pd-session-export.h"
#include "pd-test-hang.h"
#include "pd-test-ui.h"
#include "pd-transcript-view.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

/* A run that has not finished after this long is stuck; fail loudly. */
/* The bound of every wait, in ms (pd_test_wait_ms()). */
#define WAIT_BOUND_MS 90000.0
/* A whole application run holds several waits: its bound is a few of them. */
#define RUN_BOUND_WAITS 3

typedef struct
{
  PdTestWindowFunc func;
  gpointer         user_data;
  gboolean         saw_window;
  gboolean         checked;
} RunData;

static RunData *current_run;
static gboolean registered;

/**
 * pd_test_set_registered:
 * @is_registered: whether pd_test_run_app() registers the application on
 *   the session bus under its id (a notification server reaches its actions
 *   there) instead of running it as a non-unique instance
 */
void
pd_test_set_registered (gboolean is_registered)
{
  registered = is_registered;
}

void
pd_test_reset_settings (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GSettingsSchema) schema = NULL;
  g_auto(GStrv) keys = NULL;

  g_object_get (settings, "settings-schema", &schema, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    g_settings_reset (settings, keys[i]);
}

/**
 * pd_test_copy_tree:
 * @from: a folder of fixtures
 * @to: where the copy goes (made with its parents)
 *
 * Copies @from and everything below it to @to, files byte for byte.
 */
void
pd_test_copy_tree (const char *from,
                   const char *to)
{
  g_autoptr(GDir) dir = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (to, 0700), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *src = g_build_filename (from, name, NULL);
      g_autofree char *dst = g_build_filename (to, name, NULL);

      if (g_file_test (src, G_FILE_TEST_IS_DIR))
        pd_test_copy_tree (src, dst);
      else
        {
          g_autofree char *data = NULL;
          gsize len = 0;

          g_assert_true (g_file_get_contents (src, &data, &len, NULL));
          g_assert_true (g_file_set_contents (dst, data, (gssize) len, NULL));
        }
    }
}

void
pd_test_flush (GtkWidget *widget)
{
  guint iterations = 0;

  g_assert_true (gtk_widget_get_mapped (widget));

  gtk_test_widget_wait_for_draw (widget);
  gdk_display_sync (gtk_widget_get_display (widget));

  /* Bounded: let pending layout and idle work settle. */
  while (g_main_context_pending (NULL) && iterations++ < 1000)
    g_main_context_iteration (NULL, FALSE);
}

/* @label, as drawn at its width, has one Pango line for each line of its
 * text: no line of a preview is wrapped into a tail that reads as a line
 * of its own ("- delete_backups()" under an added line). */
void
pd_test_assert_line_per_line (GtkWidget *label)
{
  PangoLayout *layout;
  const char *text;
  int lines = 1;

  g_assert_true (GTK_IS_LABEL (label));
  g_assert_cmpint (gtk_widget_get_width (label), >, 0);
  layout = gtk_label_get_layout (GTK_LABEL (label));
  text = pango_layout_get_text (layout);
  for (const char *p = text; *p != '\0'; p++)
    if (*p == '\n')
      lines++;
  g_test_message ("%d lines of text drawn as %d lines, %d px wide", lines,
                  pango_layout_get_line_count (layout), gtk_widget_get_width (label));
  g_assert_cmpint (pango_layout_get_line_count (layout), ==, lines);
}

static gboolean
has_class (GtkWidget     *widget,
           gconstpointer  css_class)
{
  return gtk_widget_has_css_class (widget, css_class);
}

GtkWidget *
pd_test_approval_preview (GtkWidget *dialog)
{
  return pd_test_find_first (dialog, has_class, "pd-approval-scroller");
}

static GtkWidget *
approval_rows (GtkWidget *dialog)
{
  GtkWidget *box = pd_test_find_first (dialog, has_class, "pd-approval-preview");

  g_assert_nonnull (box);
  return box;
}

static char *
without_ltr_marks (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (g_utf8_get_char (p) != 0x200e)
      g_string_append_unichar (out, g_utf8_get_char (p));
  return g_string_free (out, FALSE);
}

char *
pd_test_approval_text (GtkWidget *dialog)
{
  GString *out = g_string_new (NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (approval_rows (dialog)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *mark = pd_test_find_first (row, has_class, "pd-approval-mark");
      const char *mark_text = gtk_label_get_text (GTK_LABEL (mark));
      GtkWidget *line = pd_test_find_first (row, has_class, "pd-approval-line");
      g_autofree char *text = without_ltr_marks (gtk_label_get_text (GTK_LABEL (line)));

      if (out->len > 0)
        g_string_append_c (out, '\n');
      if (mark_text[0] != '\0')
        g_string_append_printf (out, "%s ", mark_text);
      g_string_append (out, text);
    }
  return g_string_free (out, FALSE);
}

static gboolean
preview_fitted (gpointer data)
{
  /* Fitted at the width it has now (a narrower window fits it again). */
  return g_object_get_data (G_OBJECT (data), "pd-preview-fitted") != NULL &&
         GPOINTER_TO_INT (g_object_get_data (G_OBJECT (data), "pd-fitted-width")) == gtk_widget_get_width (data);
}

gboolean
pd_test_approval_text_contains (GtkWidget  *dialog,
                                const char *text)
{
  g_autofree char *shown = pd_test_approval_text (dialog);

  return strstr (shown, text) != NULL;
}

/* Each row of the preview as drawn: its number (i + 1, on one line), its
 * mark, its text, which holds one line of the preview and starts where
 * every other row's text starts, right of the gutter: a wrapped part of
 * it is drawn there, with no number and no mark beside it, and cannot
 * read as a line of its own. Returns the rows, and in @n_wrapped how many
 * of them wrap. */
guint
pd_test_assert_approval_rows (GtkWidget *dialog,
                              guint     *n_wrapped)
{
  GtkWidget *box = approval_rows (dialog);
  double text_x = -1;
  guint n = 0;

  /* As laid out to stay (pd-approval-preview.c's fitting done). */
  pd_test_wait_until (preview_fitted, pd_test_approval_preview (dialog), "the preview to be laid out");
  pd_test_flush (dialog);

  if (n_wrapped != NULL)
    *n_wrapped = 0;
  for (GtkWidget *row = gtk_widget_get_first_child (box); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *number = pd_test_find_first (row, has_class, "pd-approval-number");
      GtkWidget *mark = pd_test_find_first (row, has_class, "pd-approval-mark");
      GtkWidget *text = pd_test_find_first (row, has_class, "pd-approval-line");
      g_autofree char *expected = g_strdup_printf ("%u", ++n);
      graphene_rect_t mark_box, text_box;
      int lines;

      g_assert_true (GTK_IS_LABEL (number) && GTK_IS_LABEL (mark) && GTK_IS_LABEL (text));
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (number)), ==, expected);
      g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (number))), ==, 1);
      g_assert_null (strchr (gtk_label_get_text (GTK_LABEL (text)), '\n'));
      g_assert_false (gtk_label_get_use_markup (GTK_LABEL (text)));
      g_assert_true (gtk_widget_compute_bounds (mark, box, &mark_box));
      {
        graphene_rect_t number_box;

        g_assert_true (gtk_widget_compute_bounds (number, box, &number_box));
        g_assert_cmpfloat (number_box.origin.x + number_box.size.width, <=, mark_box.origin.x + 1);
      }
      g_assert_true (gtk_widget_compute_bounds (text, box, &text_box));
      g_assert_cmpfloat (text_box.origin.x, >=, mark_box.origin.x + mark_box.size.width);
      g_assert_cmpfloat (mark_box.size.width, >, 0);
      if (text_x < 0)
        text_x = text_box.origin.x;
      g_assert_cmpfloat (text_box.origin.x, ==, text_x);
      /* The whole line inside its label's width: wrapped, never clipped. */
      {
        int drawn = 0;

        pango_layout_get_pixel_size (gtk_label_get_layout (GTK_LABEL (text)), &drawn, NULL);
        g_assert_cmpint (drawn, <=, gtk_widget_get_width (text) + 1);
        g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (text))));
      }
      lines = pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (text)));
      if (lines > 1 && n_wrapped != NULL)
        (*n_wrapped)++;
    }
  return n;
}

void
pd_test_assert_approval_shows (GtkWidget  *dialog,
                               const char *expected,
                               guint       n_rows,
                               guint       n_wrapped)
{
  g_autofree char *shown = pd_test_approval_text (dialog);
  GtkWidget *scroller = pd_test_approval_preview (dialog);
  GtkPolicyType sideways;
  guint wrapped = 0;

  g_assert_nonnull (scroller);
  g_assert_cmpstr (shown, ==, expected);
  gtk_scrolled_window_get_policy (GTK_SCROLLED_WINDOW (scroller), &sideways, NULL);
  g_assert_cmpint (sideways, ==, GTK_POLICY_NEVER);
  g_assert_cmpuint (pd_test_assert_approval_rows (dialog, &wrapped), ==, n_rows);
  g_assert_cmpuint (wrapped, ==, n_wrapped);
}

/* The first widget, depth first from @root itself, that @match accepts. */
GtkWidget *
pd_test_find_first (GtkWidget          *root,
                    PdTestWidgetMatch   match,
                    gconstpointer       data)
{
  if (match (root, data))
    return root;

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = pd_test_find_first (child, match, data);

      if (found != NULL)
        return found;
    }

  return NULL;
}

static gboolean
is_of_type (GtkWidget     *widget,
            gconstpointer  data)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (widget, *(const GType *) data);
}

/* A label that says @data, alone or inside an isolate (U+2068 … U+2069,
 * as labels of anyone's text show it). */
static gboolean
is_label_with_text (GtkWidget     *widget,
                    gconstpointer  data)
{
  const char *text;
  gsize length;

  if (!GTK_IS_LABEL (widget))
    return FALSE;
  text = gtk_label_get_text (GTK_LABEL (widget));
  if (g_strcmp0 (text, data) == 0)
    return TRUE;
  length = strlen (data);
  return g_str_has_prefix (text, "\xe2\x81\xa8") && strlen (text) == length + 6 &&
         strncmp (text + 3, data, length) == 0 && g_str_has_suffix (text, "\xe2\x81\xa9");
}

static gboolean
is_button_for_action (GtkWidget     *widget,
                      gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), data) == 0;
}

GtkWidget *
pd_test_find_widget (GtkWidget *root,
                     GType      type)
{
  return pd_test_find_first (root, is_of_type, &type);
}

GtkWidget *
pd_test_find_label (GtkWidget  *root,
                    const char *text)
{
  return pd_test_find_first (root, is_label_with_text, text);
}

static gboolean
is_mapped_label_with_text (GtkWidget     *widget,
                           gconstpointer  data)
{
  return gtk_widget_get_mapped (widget) && is_label_with_text (widget, data);
}

/* The first label showing @text that is on screen: a label bound to
 * another's text (a status page's copy of a page's title) may come first
 * in the tree while its page is not shown. */
GtkWidget *
pd_test_find_mapped_label (GtkWidget  *root,
                           const char *text)
{
  return pd_test_find_first (root, is_mapped_label_with_text, text);
}

/* The first button bound to @action: its sensitivity is the action's state. */
GtkWidget *
pd_test_find_action_button (GtkWidget  *root,
                            const char *action)
{
  return pd_test_find_first (root, is_button_for_action, action);
}

static gboolean
is_button_labelled (GtkWidget     *widget,
                    gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), data) == 0;
}

/* The first button labelled @label, as set (mnemonic and all): a toast's. */
GtkWidget *
pd_test_find_button (GtkWidget  *root,
                     const char *label)
{
  return pd_test_find_first (root, is_button_labelled, label);
}

static void
on_remember_looked_up (GObject      *object,
                       GAsyncResult *result,
                       gpointer      data)
{
  g_autofree char *token = pd_secrets_lookup_token_finish (result, NULL);

  *(gboolean *) data = TRUE;
}

static gboolean
remember_answered (gpointer data)
{
  return *(gboolean *) data;
}

/* Shown and drawn: pressed while its toast still came in, nothing heard it. */
static gboolean
remember_shown (gpointer data)
{
  GtkWidget *button = pd_test_find_button (data, "_Remember");

  return button != NULL && gtk_widget_get_mapped (button) && gtk_widget_get_sensitive (button) &&
         gtk_widget_get_child_visible (button);
}

/* Its toast dismissed by the press: the button left the window. */
static gboolean
remember_gone (gpointer data)
{
  return gtk_widget_get_root (data) == NULL;
}

/**
 * pd_test_press_remember:
 *
 * A #PdTestWindowFunc: once the endpoint took the token given with
 * `--remote URL?token=`, the window offers to remember it (nothing goes to
 * the keyring unasked): Remember is pressed.
 */
void
pd_test_press_remember (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  gboolean answered = FALSE;
  g_autoptr(GtkWidget) button = NULL;

  pd_test_wait_until (remember_shown, window, "the window to offer to remember the token");
  button = g_object_ref (pd_test_find_button (GTK_WIDGET (window), "_Remember"));
  /* Clicked, not gtk_widget_activate(): GtkButton's activate only starts a
   * 250 ms timer that emits ::clicked, so the store was asked after this
   * returned, or never (the window closed first), and the keyring was
   * not seen to have the token. */
  g_signal_emit_by_name (button, "clicked");
  pd_test_wait_until (remember_gone, button, "the offer to go once Remember was pressed");
  /* The keyring answers in turn: a lookup asked now, after the store the
   * press asked, while the window is still there to hear it. */
  pd_secrets_lookup_token_async (pd_window_get_remote_url (window), on_remember_looked_up, &answered);
  pd_test_wait_until (remember_answered, &answered, "the keyring to answer the store");
}

static gboolean
wake_up (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

/**
 * pd_test_wait_ms:
 *
 * The bound of every wait of the ui suite (PD_TEST_WAIT_MS): 90 s, times
 * PD_TEST_WAIT_SCALE when that is a positive number.  Waits are hang
 * detectors, never timings: a loaded machine only makes them last longer.
 *
 * Returns: the bound in ms
 */
guint
pd_test_wait_ms (void)
{
  static guint bound_ms;

  if (bound_ms == 0)
    {
      const char *text = g_getenv ("PD_TEST_WAIT_SCALE");
      double scale = 1.0;

      if (text != NULL && *text != '\0')
        {
          char *end = NULL;

          scale = g_ascii_strtod (text, &end);
          if (end == text || *end != '\0' || !(scale > 0.0) || scale > 1000.0)
            g_error ("PD_TEST_WAIT_SCALE=%s: give a positive number, such as 2 or 0.5", text);
        }
      bound_ms = (guint) MAX (1.0, WAIT_BOUND_MS * scale);
    }
  return bound_ms;
}

/**
 * pd_test_wait_until:
 * @condition: checked after each main-loop iteration
 * @what: named in the failure
 *
 * Runs the default main context until @condition holds.  Bounded by
 * PD_TEST_WAIT_MS, a hang detector: the test fails after that.
 */
void
pd_test_wait_until (PdTestCondition  condition,
                    gpointer         data,
                    const char      *what)
{
  guint bound_ms = pd_test_wait_ms ();
  gint64 deadline = g_get_monotonic_time () + (gint64) bound_ms * 1000;
  guint waker = g_timeout_add (10, wake_up, NULL);
  PdTestHangWatch watch;

  pd_test_hang_watch_start (&watch);
  while (!condition (data))
    {
      if (g_get_monotonic_time () > deadline)
        {
          pd_test_hang_report (&watch, what);
          g_error ("timed out after %u ms waiting for %s", bound_ms, what);
        }
      g_main_context_iteration (NULL, TRUE);
      watch.iterations++;
    }

  g_source_remove (waker);
}

/**
 * pd_test_make_tmp_dir:
 *
 * Returns: (transfer full): a new empty directory under the temporary one
 */
char *
pd_test_make_tmp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("plandeck-ui-XXXXXX", &error);

  g_assert_no_error (error);

  return dir;
}

static gboolean
only_caller_holds (gpointer data)
{
  return g_atomic_int_get (&G_OBJECT (data)->ref_count) == 1;
}

/**
 * pd_test_assert_finalized:
 * @object: (transfer full): an object the caller holds one reference to,
 *   e.g. a widget it took a reference on before destroying its window
 *
 * The leak check of the ui tests: waits until work in flight (a read on a
 * worker thread, an idle) has let go of @object, then drops the caller's
 * reference and asserts that @object was finalized.  An object that
 * something still holds after that (a reference cycle, a signal handler
 * that took a reference, a task never completed) fails here, naming its
 * type and reference count.  Bounded by PD_TEST_WAIT_MS, a hang detector.
 */
void
pd_test_assert_finalized (gpointer object)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) pd_test_wait_ms () * 1000;
  guint waker;

  g_assert_true (G_IS_OBJECT (object));
  waker = g_timeout_add (10, wake_up, NULL);
  while (!only_caller_holds (object) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (waker);

  if (!only_caller_holds (object))
    g_error ("%s %p is still referenced %u times besides the test's reference: leaked",
             G_OBJECT_TYPE_NAME (object), object, (guint) g_atomic_int_get (&G_OBJECT (object)->ref_count) - 1);
  g_assert_finalize_object (object);
}

/**
 * pd_test_destroy_window:
 * @window: a #GtkWindow (a test window, a dialog)
 * @content: (nullable): a widget inside it under test, e.g. a view
 *
 * Destroys @window and asserts that @window and then @content are freed
 * (pd_test_assert_finalized()).
 */
void
pd_test_destroy_window (gpointer window,
                        gpointer content)
{
  g_assert_true (GTK_IS_WINDOW (window));
  g_object_ref (window);
  if (content != NULL)
    g_object_ref (content);
  gtk_window_destroy (GTK_WINDOW (window));
  /* The window lets go of its children when it is freed itself. */
  pd_test_assert_finalized (window);
  if (content != NULL)
    pd_test_assert_finalized (content);
}

GtkWindow *
pd_test_find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n = g_list_model_get_n_items (toplevels);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (item, type))
        return GTK_WINDOW (item);
    }

  return NULL;
}

GtkWindow *
pd_test_mapped_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type) && gtk_widget_get_mapped (GTK_WIDGET (window)))
        return window;
    }
  return NULL;
}

gboolean
pd_test_toplevel_shown (gpointer type)
{
  return pd_test_mapped_toplevel (GPOINTER_TO_SIZE (type)) != NULL;
}

gboolean
pd_test_toplevel_gone (gpointer type)
{
  return pd_test_mapped_toplevel (GPOINTER_TO_SIZE (type)) == NULL;
}

AdwMessageDialog *
pd_test_open_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_mapped (GTK_WIDGET (window)) &&
          !g_object_get_data (G_OBJECT (window), "test-answered"))
        return ADW_MESSAGE_DIALOG (window);
    }

  return NULL;
}

gboolean
pd_test_message_dialog_shown (gpointer data)
{
  return pd_test_open_message_dialog () != NULL;
}

AdwMessageDialog *
pd_test_wait_for_dialog (const char *what)
{
  pd_test_wait_until (pd_test_message_dialog_shown, NULL, what);
  return pd_test_open_message_dialog ();
}

static void
close_all_windows (GtkApplication *app)
{
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (app));

  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
}

static void
check_window (gpointer user_data)
{
  PdWindow *window = PD_WINDOW (user_data);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (window));

  pd_test_flush (GTK_WIDGET (window));

  if (current_run->func != NULL)
    current_run->func (PD_APPLICATION (app), window, current_run->user_data);
  current_run->checked = TRUE;

  /* Closed, the window is freed, and with it each of its views, its
   * session source, its runs and its demo: nothing they started holds
   * them. */
  {
    GType views[] = {
      PD_TYPE_SESSION_LIST, PD_TYPE_NOW_VIEW, PD_TYPE_CHECKLIST_VIEW,
      PD_TYPE_TRANSCRIPT_VIEW, PD_TYPE_EVENTS_VIEW, PD_TYPE_HISTORY_VIEW,
    };
    g_autoptr(GPtrArray) held = g_ptr_array_new ();

    for (guint i = 0; i < G_N_ELEMENTS (views); i++)
      {
        GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window), views[i]);

        if (view == NULL)
          g_error ("the window has no %s", g_type_name (views[i]));
        g_ptr_array_add (held, g_object_ref (view));
      }
    /* Its runs too (before the source they hold): a run's worker or a
     * dialog holds none of them. */
    if (pd_window_get_run_controller (window) != NULL)
      g_ptr_array_add (held, g_object_ref (pd_window_get_run_controller (window)));
    if (pd_window_get_source (window) != NULL)
      g_ptr_array_add (held, g_object_ref (pd_window_get_source (window)));
    /* And the demo (after the source: it removes the source's folder). */
    if (pd_window_get_demo (window) != NULL)
      g_ptr_array_add (held, g_object_ref (pd_window_get_demo (window)));

    close_all_windows (app);
    pd_test_assert_finalized (window);
    for (guint i = 0; i < held->len; i++)
      pd_test_assert_finalized (g_ptr_array_index (held, i));
  }
}

static void
on_window_added (GtkApplication *app,
                 GtkWindow      *window,
                 gpointer        user_data)
{
  if (!PD_IS_WINDOW (window) || current_run->saw_window)
    return;

  current_run->saw_window = TRUE;
  /* The window is still being built here; check it once it is shown. */
  g_idle_add_once (check_window, g_object_ref (window));
}

static gboolean
on_run_timeout (gpointer user_data)
{
  g_error ("the application did not finish within %u ms", RUN_BOUND_WAITS * pd_test_wait_ms ());
  return G_SOURCE_REMOVE;
}

/**
 * pd_test_run_app:
 * @args: (nullable): command line arguments after the program name
 * @func: (nullable): checks to run on the first window, once drawn
 * @saw_window: (out) (optional): whether a window was opened
 *
 * Runs a real #PdApplication, in process and without registering a unique
 * name, with @args. The windows are closed after @func returns.
 *
 * Returns: the exit status of g_application_run()
 */
int
pd_test_run_app (const char * const *args,
                 PdTestWindowFunc    func,
                 gpointer            user_data,
                 gboolean           *saw_window)
{
  g_autoptr(PdApplication) app = pd_application_new ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  RunData run = { func, user_data, FALSE, FALSE };
  guint timeout_id;
  int status;

  g_assert_null (current_run);
  current_run = &run;

  g_ptr_array_add (argv, (gpointer) "plandeck");
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  if (!registered)
    g_application_set_flags (G_APPLICATION (app),
                             g_application_get_flags (G_APPLICATION (app)) |
                             G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "window-added", G_CALLBACK (on_window_added), NULL);

  timeout_id = g_timeout_add (RUN_BOUND_WAITS * pd_test_wait_ms (), on_run_timeout, NULL);
  status = g_application_run (G_APPLICATION (app), argv->len - 1, (char **) argv->pdata);
  g_source_remove (timeout_id);

  if (run.saw_window)
    g_assert_true (run.checked);
  if (saw_window != NULL)
    *saw_window = run.saw_window;

  current_run = NULL;
  /* Its windows closed, the application is freed too. */
  pd_test_assert_finalized (g_steal_pointer (&app));

  return status;
}

/**
 * pd_test_x11_click:
 * @x: (in @widget's coordinates)
 * @button: 1 for the primary button, 3 for the secondary
 *
 * Clicks at @x, @y of @widget through the X server (xdotool), as a person
 * does: GTK gets the press and the release as real events.
 *
 * Returns: %FALSE when it cannot (no xdotool, not on X11): the caller skips
 */
gboolean
pd_test_x11_click (GtkWidget *widget,
                   double     x,
                   double     y,
                   guint      button)
{
#ifdef GDK_WINDOWING_X11
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  GtkNative *native = gtk_widget_get_native (widget);
  GdkSurface *surface = native != NULL ? gtk_native_get_surface (native) : NULL;
  g_autofree char *at_x = NULL;
  g_autofree char *at_y = NULL;
  g_autofree char *window_id = NULL;
  g_autofree char *pressed = g_strdup_printf ("%u", button);
  g_autoptr(GError) error = NULL;
  graphene_point_t point;
  double dx, dy;
  int status = 0;

  if (xdotool == NULL || surface == NULL || !GDK_IS_X11_SURFACE (surface))
    return FALSE;
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &GRAPHENE_POINT_INIT (x, y), &point));
  gtk_native_get_surface_transform (native, &dx, &dy);
  at_x = g_strdup_printf ("%d", (int) (point.x + dx));
  at_y = g_strdup_printf ("%d", (int) (point.y + dy));
  window_id = g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface));
  {
    const char *argv[] = { xdotool, "mousemove", "--sync", "--window", window_id, at_x, at_y,
                           "click", pressed, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status,
                                 &error));
  }
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return TRUE;
#else
  return FALSE;
#endif
}

typedef struct
{
  AdwPreferencesRow *row;
  const char        *title;
} RowTitle;

static gboolean
row_titled (gpointer data)
{
  RowTitle *wait = data;

  return g_strcmp0 (adw_preferences_row_get_title (wait->row), wait->title) == 0;
}

/* Waits for the preferences row @row to be titled @title. */
void
pd_test_wait_row_title (gpointer    row,
                        const char *title,
                        const char *what)
{
  RowTitle wait = { ADW_PREFERENCES_ROW (row), title };

  pd_test_wait_until (row_titled, &wait, what);
}

/* --- exports ------------------------------------------------------------ */

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Exported;

static void
on_exported (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Exported *exported = user_data;

  exported->ok = pd_session_export_finish (result, &exported->error);
  exported->done = TRUE;
}

static gboolean
is_done (gpointer user_data)
{
  return ((Exported *) user_data)->done;
}

/* Exports @id of @source to @path as the window does; the file's text. */
char *
pd_test_export_to (PdSource              *source,
           const char            *id,
           PdSessionExportFormat  format,
           const char            *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  Exported exported = { 0 };
  char *text = NULL;

  pd_session_export_async (source, id, format, file, NULL, on_exported, &exported);
  pd_test_wait_until (is_done, &exported, "the export");
  g_assert_no_error (exported.error);
  g_assert_true (exported.ok);
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}
