/* test-approval-width.c: the approval dialog keeps one width
 *
 * Found tried as a new user would: a flagged call (look-alike letters)
 * was asked in a dialog 550 px wide with two buttons in a row; an
 * unflagged one in a dialog 300 px wide, its three buttons stacked and
 * its command wrapping mid-quote.  Both now have the wider one, the
 * buttons in a row where they fit (three do not: each as wide as
 * "Always for This Session", 600 px and more).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-approval-width"

#include "config.h"

#include "pd-test-runs.h"

static const char *const replay_two_commands =
  "{\"label\": \"test: a flagged command, a plain one\", \"turns\": ["
  " {\"content\": \"Cleaning up.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"r\\u043c -rf b\\u0430ckup\"}}]},"
  " {\"content\": \"Greeting.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo 'It is \\u201cfine\\u201d' && echo done\"}}]},"
  " {\"content\": \"All done.\"}]}";

typedef struct
{
  int      width;
  gboolean in_a_row;   /* every response button on one line */
  guint    n_buttons;
  int      row_needs;  /* the buttons side by side, each as wide as the widest */
} Shape;

static gboolean
is_response_button (GtkWidget     *widget,
                    gconstpointer  data)
{
  /* libadwaita makes each response's button twice, for its two layouts:
   * the shown one. */
  if (!GTK_IS_BUTTON (widget) || !gtk_widget_get_mapped (widget) || gtk_button_get_label (GTK_BUTTON (widget)) == NULL)
    return FALSE;
  for (GtkWidget *up = widget; up != NULL; up = gtk_widget_get_parent (up))
    if (!gtk_widget_get_child_visible (up) || gtk_widget_get_width (up) == 0)
      return FALSE;
  return TRUE;
}

static void
collect_buttons (GtkWidget *widget,
                 GPtrArray *buttons)
{
  if (is_response_button (widget, NULL))
    g_ptr_array_add (buttons, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    collect_buttons (child, buttons);
}

/* In its first frames both layouts of the buttons can be mapped (6
 * buttons for 3 responses, every time on an idle machine): the shape is
 * read once one is left. */
static gboolean
one_layout_shown (gpointer data)
{
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
  g_autoptr(GHashTable) labels = g_hash_table_new (g_str_hash, g_str_equal);

  collect_buttons (GTK_WIDGET (data), buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (!g_hash_table_add (labels, (gpointer) gtk_button_get_label (g_ptr_array_index (buttons, i))))
      return FALSE;
  return buttons->len > 0;
}

static Shape
dialog_shape (AdwMessageDialog *dialog)
{
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
  Shape shape = { gtk_widget_get_width (GTK_WIDGET (dialog)), TRUE, 0 };
  graphene_rect_t first;

  pd_test_flush (GTK_WIDGET (dialog));
  shape.width = gtk_widget_get_width (GTK_WIDGET (dialog));
  collect_buttons (GTK_WIDGET (dialog), buttons);
  shape.n_buttons = buttons->len;
  for (guint i = 0; i < buttons->len; i++)
    {
      graphene_rect_t bounds;
      int natural;

      gtk_widget_measure (g_ptr_array_index (buttons, i), GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      shape.row_needs = MAX (shape.row_needs, natural * (int) buttons->len);
      g_assert_true (gtk_widget_compute_bounds (g_ptr_array_index (buttons, i), GTK_WIDGET (dialog), &bounds));
      if (i == 0)
        first = bounds;
      else if (bounds.origin.y != first.origin.y)
        shape.in_a_row = FALSE;
    }
  return shape;
}

static void
check_one_width (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  Shape flagged, plain;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "Clean up and greet");
  dialog = pd_test_wait_for_dialog ("the flagged command's prompt");
  g_assert_true (pd_test_approval_text_contains (GTK_WIDGET (dialog), "\\u0430"));
  pd_test_wait_until (one_layout_shown, dialog, "one layout of the flagged prompt's buttons");
  flagged = dialog_shape (dialog);
  pd_test_screenshot (GTK_WIDGET (dialog), "approval-width-flagged");
  respond (dialog, "deny");

  dialog = pd_test_wait_for_dialog ("the plain command's prompt");
  pd_test_wait_until (one_layout_shown, dialog, "one layout of the plain prompt's buttons");
  plain = dialog_shape (dialog);
  pd_test_screenshot (GTK_WIDGET (dialog), "approval-width-plain");
  g_test_message ("flagged: %d px, %u buttons%s; plain: %d px, %u buttons%s (%d px side by side)",
                  flagged.width, flagged.n_buttons, flagged.in_a_row ? " in a row" : " stacked",
                  plain.width, plain.n_buttons, plain.in_a_row ? " in a row" : " stacked", plain.row_needs);
  respond (dialog, "deny");
  pd_test_wait_until (run_finished, fixture, "the run to finish");

  /* Before: 550 px and 2 buttons in a row, then 300 px and 3 stacked. */
  g_assert_cmpuint (flagged.n_buttons, ==, 2);
  g_assert_cmpuint (plain.n_buttons, ==, 3);
  g_assert_cmpint (plain.width, ==, flagged.width);
  g_assert_true (flagged.in_a_row);
  /* Three in a row where they fit: "Always for This Session" makes each
   * too wide for a third of the dialog. */
  g_assert_true (plain.in_a_row || plain.row_needs > plain.width);
}

static void
test_one_width (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_two_commands);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_one_width, fixture, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/approval-width/one-width", test_one_width);

  return g_test_run ();
}
