/* test-a11y-cards.c: an Overview card as a screen reader reads it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A card alone in a window, read through GTK_A11Y=test as GTK 4.8's
 * AT-SPI backend reads it: its name says what a sighted person reads on
 * it (title, what it needs, the steps done, the current step, the time),
 * told again as the card changes; no name or description of it or of its
 * labels carries the isolates and marks its texts are shown with; and the
 * pie beside a failure is not the success colour.  A toast's close
 * button is named.  At 1.5× text in a 360 px window no Overview card
 * passes the window's edge and nothing on one that carries text is cut.
 */
#define G_LOG_DOMAIN "test-a11y-cards"

#include "config.h"

#include "pd-overview-card-row.h"
#include "pd-overview-private.h"
#include "pd-plan-pie.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-a11y.h"
#include "pd-test-ui.h"
#include "pd-ui-util-private.h"

#define SESSION_ID "20260402-96aca9fa885c03da29d4f8c5e78be75c"

typedef struct
{
  GtkWidget *window;
  GtkWidget *row;
} Alone;

static void
card_info (PdOverviewCard   *card,
           PdSessionStatus   status,
           guint             done,
           const char       *stopped)
{
  PdSessionInfo info = { 0 };

  info.id = (char *) SESSION_ID;
  info.task = (char *) "Fix the \u202eparser";
  info.source = (char *) "codex";
  info.status = status;
  info.stopped = (char *) stopped;
  info.updated_at = g_get_real_time () - 5 * G_TIME_SPAN_MINUTE - 10 * G_TIME_SPAN_SECOND;
  info.plan_done = done;
  info.plan_total = 3;
  _pd_overview_card_set_info (card, &info);
  _pd_overview_card_update_need (card, g_get_real_time (), G_MAXINT64 / 2);
}

static PdOverviewCard *
card_new (void)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (":memory:", FALSE);
  PdOverviewCard *card = _pd_overview_card_new (PD_SOURCE (source), SESSION_ID);

  card_info (card, PD_SESSION_STATUS_RUNNING, 1, NULL);
  _pd_overview_card_set_source_name (card, "build-box");
  _pd_overview_card_set_current_step (card, 1, "Write the tests", TRUE, 0, NULL);
  return card;
}

static gboolean
row_laid_out (gpointer data)
{
  Alone *alone = data;

  return gtk_widget_get_mapped (alone->row) && gtk_widget_get_width (alone->row) > 0;
}

static void
alone_show (Alone          *alone,
            PdOverviewCard *card)
{
  alone->window = gtk_window_new ();
  alone->row = pd_overview_card_row_new ();
  gtk_window_set_default_size (GTK_WINDOW (alone->window), 600, 400);
  gtk_window_set_child (GTK_WINDOW (alone->window), alone->row);
  pd_overview_card_row_set_card (PD_OVERVIEW_CARD_ROW (alone->row), card);
  gtk_window_present (GTK_WINDOW (alone->window));
  pd_test_wait_until (row_laid_out, alone, "the card laid out");
}

static gboolean
has_formatting (const char *text)
{
  for (const char *p = text; p != NULL && *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if ((c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0x2007 ||
          (c >= 0x202A && c <= 0x202E))
        return TRUE;
    }
  return FALSE;
}

/* Every widget of the card shown, its labels too (GTK 4.8 names a label
 * by its text, and a reader reads it so): no isolate or mark in a name or
 * description.  Returns how many were read. */
static guint
assert_plain (GtkWidget *widget)
{
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;
  guint n = 1;

  if (!gtk_widget_get_visible (widget))
    return 0;
  name = pd_test_a11y_name (widget);
  description = pd_test_a11y_description (widget);
  if (has_formatting (name) || has_formatting (description))
    g_error ("%s: formatting characters in name “%s” or description “%s”", G_OBJECT_TYPE_NAME (widget), name,
             description);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += assert_plain (child);
  return n;
}

static void
assert_says (const char *text,
             const char *part)
{
  if (strstr (text, part) == NULL)
    g_error ("“%s” does not say “%s”", text, part);
}

/* The card's name says its title, what it needs, the steps done, the
 * current step and when it changed (it said only the title and the need:
 * "1/3", "Now: …" and "5 min ago" were not read, tried with a screen
 * reader); its description where it runs; and it is told again when the
 * card changes. */
static void
test_card_name (void)
{
  g_autoptr(PdOverviewCard) card = card_new ();
  Alone alone = { 0 };
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;
  g_autofree char *failed = NULL;

  alone_show (&alone, card);
  name = pd_test_a11y_name (alone.row);
  g_test_message ("name: %s", name);
  assert_says (name, "Fix the");
  assert_says (name, "parser");
  assert_says (name, "Running");
  assert_says (name, "1 of 3 steps done");
  assert_says (name, "Now: Write the tests");
  assert_says (name, "5 min ago");
  description = pd_test_a11y_description (alone.row);
  g_test_message ("description: %s", description);
  assert_says (description, "build-box");

  card_info (card, PD_SESSION_STATUS_FAILED, 2, "failed");
  _pd_overview_card_emit_changed (card);
  failed = pd_test_a11y_name (alone.row);
  g_test_message ("name: %s", failed);
  assert_says (failed, "Failed");
  assert_says (failed, "2 of 3 steps done");
  gtk_window_destroy (GTK_WINDOW (alone.window));
}

/* No name or description on the card carries the isolates (U+2068,
 * U+2069) and marks its texts are shown with: a reader said
 * "Now: ⁨Write the tests⁩" of the current step's label. */
static void
test_card_plain (void)
{
  g_autoptr(PdOverviewCard) card = card_new ();
  Alone alone = { 0 };

  alone_show (&alone, card);
  g_assert_cmpuint (assert_plain (alone.row), >, 10);
  /* And once changed. */
  _pd_overview_card_set_current_step (card, 1, "Run \u2067them\u2069", TRUE, 0, NULL);
  _pd_overview_card_emit_changed (card);
  assert_plain (alone.row);
  gtk_window_destroy (GTK_WINDOW (alone.window));
}

static gboolean
is_pie (GtkWidget     *widget,
        gconstpointer  data)
{
  return PD_IS_PLAN_PIE (widget);
}

/* A failed card shows no success-green pie beside its red "Failed" (tried
 * as a new user would): the X/Y beside it says how far it got. */
static void
test_card_failed_pie (void)
{
  g_autoptr(PdOverviewCard) card = card_new ();
  Alone alone = { 0 };
  GtkWidget *pie;

  alone_show (&alone, card);
  pie = pd_test_find_first (alone.row, is_pie, NULL);
  g_assert_nonnull (pie);
  g_assert_true (gtk_widget_get_visible (pie));
  card_info (card, PD_SESSION_STATUS_FAILED, 2, "failed");
  _pd_overview_card_emit_changed (card);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_FAILED);
  g_assert_false (gtk_widget_get_visible (pie));
  card_info (card, PD_SESSION_STATUS_RUNNING, 2, NULL);
  _pd_overview_card_emit_changed (card);
  g_assert_true (gtk_widget_get_visible (pie));
  gtk_window_destroy (GTK_WINDOW (alone.window));
}

static gboolean
is_type (GtkWidget     *widget,
         gconstpointer  data)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (widget, GPOINTER_TO_SIZE (data));
}

/* The header's title (a session's) and the sidebar's session rows (their
 * titles and agent chips) are shown isolated too: what a reader gets of
 * their labels is not. */
static void
check_header_sidebar (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  GtkWidget *title, *sidebar;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  title = pd_test_find_first (GTK_WIDGET (window), is_type, GSIZE_TO_POINTER (ADW_TYPE_VIEW_SWITCHER_TITLE));
  sidebar = pd_test_find_first (GTK_WIDGET (window), is_type, GSIZE_TO_POINTER (PD_TYPE_SESSION_LIST));
  g_assert_nonnull (title);
  g_assert_nonnull (sidebar);
  g_assert_nonnull (strstr (adw_view_switcher_title_get_title (ADW_VIEW_SWITCHER_TITLE (title)), "\u2068"));
  g_assert_cmpuint (assert_plain (title), >, 2);
  g_assert_cmpuint (assert_plain (sidebar), >, 2);
}

static void
test_header_sidebar_plain (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_header_sidebar, NULL), ==, 0);
}

static gboolean
is_toast_close (GtkWidget     *widget,
                gconstpointer  data)
{
  GtkWidget *toast = gtk_widget_get_parent (widget);

  while (toast != NULL && !g_str_equal (G_OBJECT_TYPE_NAME (toast), "AdwToastWidget"))
    toast = gtk_widget_get_parent (toast);
  return GTK_IS_BUTTON (widget) && toast != NULL &&
         g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), "window-close-symbolic") == 0 &&
         (data == NULL || gtk_widget_is_ancestor (widget, (GtkWidget *) data) == FALSE);
}

static gboolean
toast_close_shown (gpointer data)
{
  GtkWidget *button = pd_test_find_first (data, is_toast_close, NULL);

  return button != NULL && gtk_widget_get_mapped (button);
}

static gboolean
toast_gone (gpointer data)
{
  return pd_test_find_first (((GtkWidget **) data)[0], is_toast_close, NULL) != ((GtkWidget **) data)[1];
}

static void
assert_toast_close_named (GtkWidget *overlay)
{
  GtkWidget *button = pd_test_find_first (overlay, is_toast_close, NULL);
  g_autofree char *name = NULL;

  g_assert_nonnull (button);
  name = pd_test_a11y_name (button);
  g_test_message ("a toast's close button: “%s”", name);
  g_assert_cmpstr (name, ==, "Close Notification");
}

/* A toast's close button was named "GtkImage" (libadwaita 1.2 names it
 * nothing); named, for a toast shown at once and for one that waited
 * for another to go. */
static void
test_toast_close_named (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *overlay = adw_toast_overlay_new ();
  AdwToast *first = adw_toast_new ("First");
  GtkWidget *gone[2];

  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (overlay), gtk_label_new ("Content"));
  gtk_window_set_child (GTK_WINDOW (window), overlay);
  gtk_window_set_default_size (GTK_WINDOW (window), 600, 400);
  gtk_window_present (GTK_WINDOW (window));
  pd_test_flush (window);

  g_object_ref (first);
  _pd_toast_add (overlay, first);
  _pd_toast_add (overlay, adw_toast_new ("Second"));
  pd_test_wait_until (toast_close_shown, overlay, "the first toast");
  assert_toast_close_named (overlay);

  gone[0] = overlay;
  gone[1] = pd_test_find_first (overlay, is_toast_close, NULL);
  adw_toast_dismiss (first);
  g_object_unref (first);
  pd_test_wait_until (toast_gone, gone, "the first toast to go");
  pd_test_wait_until (toast_close_shown, overlay, "the second toast");
  assert_toast_close_named (overlay);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* --- the Overview at 1.5× text and 360 px ------------------------------------ */

static gboolean
overview_has_cards (gpointer data)
{
  return g_list_model_get_n_items (G_LIST_MODEL (pd_window_get_overview (data))) >= 2;
}

/* The lines @inscription's text takes at its width, against the lines it
 * shows (an inscription ellipsizes past its own lines, and says nothing). */
static gboolean
inscription_cut (GtkWidget *inscription)
{
  const char *text = gtk_inscription_get_text (GTK_INSCRIPTION (inscription));
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (inscription, text);
  int height = 0;

  pango_layout_set_width (layout, gtk_widget_get_width (inscription) * PANGO_SCALE);
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_get_pixel_size (layout, NULL, &height);
  g_test_message ("Overview: “%s” needs %d px high, shown %d px", text, height, gtk_widget_get_height (inscription));
  return height > gtk_widget_get_height (inscription) + 1;
}

/* At 1.5× text in a 360 px window (GTK's default window buttons), no
 * Overview card passes the window's right edge and nothing on a card that
 * carries text is cut, an asking card's countdown among them (the cards
 * were clipped at the right and "… in 2 minutes" cut, tried as a new user
 * would). */
static void
check_overview_narrow (PdApplication *app,
                       PdWindow      *window,
                       gpointer       user_data)
{
  PdOverview *overview = pd_window_get_overview (window);
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));
  g_autoptr(PdOverviewCard) card = NULL;
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  PdRemoteRun run = { (char *) "run-1", NULL, (char *) "waiting_approval", NULL, NULL,
                      (char *) "ap-1", (char *) "shell", (char *) "make check", NULL, 0 };
  guint n_cut, n_clipped = 0, n_deadlines = 0;
  int minimum = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_wait_until (overview_has_cards, window, "two cards");
  card = g_list_model_get_item (G_LIST_MODEL (overview), 0);
  run.session_id = (char *) pd_overview_card_get_session_id (card);
  run.approval_expires_at = g_get_monotonic_time () + 2 * 60 * G_USEC_PER_SEC;
  g_assert_true (_pd_overview_card_set_remote_run (card, &run));
  _pd_overview_card_emit_changed (card);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (window));

  gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  g_test_message ("at 1.5× text, Overview: the window needs %d px, is %d px", minimum,
                  gtk_widget_get_width (GTK_WIDGET (window)));
  pd_test_collect (GTK_WIDGET (window), PD_TYPE_OVERVIEW_CARD_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      GtkWidget *box = gtk_widget_get_first_child (row);
      g_autoptr(GPtrArray) inscriptions = g_ptr_array_new ();
      graphene_rect_t bounds;

      if (!gtk_widget_get_mapped (row))
        continue;
      g_assert_true (gtk_widget_compute_bounds (box, GTK_WIDGET (window), &bounds));
      if (bounds.origin.x + bounds.size.width > gtk_widget_get_width (GTK_WIDGET (window)))
        {
          g_test_message ("Overview: a card ends at %.0f px, the window at %d px",
                          bounds.origin.x + bounds.size.width, gtk_widget_get_width (GTK_WIDGET (window)));
          n_clipped++;
        }
      pd_test_collect (row, GTK_TYPE_INSCRIPTION, inscriptions);
      /* The countdown, and the X/Y and current step (inscriptions too: they
       * change as the plan moves on), none of them cut. */
      for (guint j = 0; j < inscriptions->len; j++)
        if (gtk_widget_get_mapped (g_ptr_array_index (inscriptions, j)))
          {
            const char *text = gtk_inscription_get_text (GTK_INSCRIPTION (g_ptr_array_index (inscriptions, j)));

            n_deadlines += text != NULL && strstr (text, "denies it by itself") != NULL;
            n_clipped += inscription_cut (g_ptr_array_index (inscriptions, j));
          }
    }
  n_cut = pd_test_a11y_count_cut_labels (GTK_WIDGET (window), "Overview");
  pd_test_screenshot (GTK_WIDGET (window), "a11y-large-text-360-overview");
  g_assert_cmpuint (n_deadlines, ==, 1);
  g_assert_cmpint (minimum, <=, 360);
  g_assert_cmpuint (n_clipped, ==, 0);
  g_assert_cmpuint (n_cut, ==, 0);
}

static void
test_overview_large_text_narrow (void)
{
  GtkSettings *settings = gtk_settings_get_default ();
  g_autofree char *layout = NULL;
  int dpi = 0;

  g_object_get (settings, "gtk-xft-dpi", &dpi, "gtk-decoration-layout", &layout, NULL);
  if (dpi <= 0)
    dpi = 96 * 1024;
  g_object_set (settings, "gtk-xft-dpi", dpi * 3 / 2,
                "gtk-decoration-layout", "appmenu:minimize,maximize,close", NULL);
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_overview_narrow, NULL), ==, 0);
  g_object_set (settings, "gtk-xft-dpi", dpi, "gtk-decoration-layout", layout, NULL);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/cards/name", test_card_name);
  g_test_add_func ("/pd/ui/a11y/cards/plain", test_card_plain);
  g_test_add_func ("/pd/ui/a11y/cards/failed-pie", test_card_failed_pie);
  g_test_add_func ("/pd/ui/a11y/cards/header-sidebar-plain", test_header_sidebar_plain);
  g_test_add_func ("/pd/ui/a11y/toast-close", test_toast_close_named);
  g_test_add_func ("/pd/ui/a11y/cards/large-text-narrow", test_overview_large_text_narrow);

  return g_test_run ();
}
