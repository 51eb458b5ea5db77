/* pd-ui-a11y.c: what a screen reader browsing object by object meets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A reader's review keys walk every object of the accessible tree, not
 * only the Tab stops. Read over AT-SPI on GTK 4.8 (tried as a new user
 * would): an empty label was said as "GtkLabel" (GTK names an object with
 * no name by its class), a label showing anyone's text between bidi
 * isolates was said with them (the window's title, a session row's title
 * and chips), the lists of a preferences group or a combo row were
 * "GtkListBox" and "GtkListView".
 */
#define G_LOG_DOMAIN "pd-ui-a11y"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-ui-util-private.h"

#define PLAIN_KEY "pd-label-speaks-plain"

static gboolean
has_formatting (const char *text)
{
  g_autofree char *plain = _pd_accessible_text (text);

  return g_strcmp0 (plain, text) != 0;
}

/* An empty label is hidden from the reader (GTK 4.8 names a hidden object
 * by nothing, a shown one without text by its class); a label with
 * isolates is named by its text without them. Runs after GtkLabel has
 * named itself by its text. */
static void
label_sync (GtkLabel *label)
{
  const char *text = gtk_label_get_text (label);
  const char *tooltip;
  gboolean empty = text == NULL || text[0] == '\0';

  gtk_accessible_update_state (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_STATE_HIDDEN,
                               empty || !gtk_widget_get_visible (GTK_WIDGET (label)), -1);
  if (!empty && has_formatting (text))
    _pd_accessible_set_text (GTK_WIDGET (label), text, NULL);
  /* Its tooltip is its description (the whole title of a cut one). */
  tooltip = gtk_widget_get_tooltip_text (GTK_WIDGET (label));
  if (tooltip != NULL && has_formatting (tooltip))
    _pd_accessible_set_text (GTK_WIDGET (label), NULL, tooltip);
}

/*
 * _pd_label_speak_plain:
 * @label: a label
 *
 * Keeps @label, whatever text it is given later, out of a reader's way
 * while empty and named without formatting characters while it shows
 * some. The shown text keeps its isolates.
 */
void
_pd_label_speak_plain (GtkLabel *label)
{
  if (g_object_get_data (G_OBJECT (label), PLAIN_KEY) != NULL)
    return;
  g_object_set_data (G_OBJECT (label), PLAIN_KEY, GINT_TO_POINTER (1));
  g_signal_connect (label, "notify::label", G_CALLBACK (label_sync), NULL);
  g_signal_connect (label, "notify::visible", G_CALLBACK (label_sync), NULL);
  g_signal_connect (label, "notify::tooltip-text", G_CALLBACK (label_sync), NULL);
  label_sync (label);
}

/*
 * _pd_labels_speak_plain:
 * @root: a widget
 *
 * _pd_label_speak_plain() for each label below @root now (a template's,
 * libadwaita's own in a header's title).
 */
void
_pd_labels_speak_plain (GtkWidget *root)
{
  if (GTK_IS_LABEL (root))
    _pd_label_speak_plain (GTK_LABEL (root));
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    _pd_labels_speak_plain (child);
}

static void
name_lists (GtkWidget  *root,
            GType       type,
            const char *name)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        {
          /* Not also by an empty title's label ("GtkLabel"). */
          gtk_accessible_reset_relation (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
          _pd_accessible_set_text (child, name, NULL);
        }
      name_lists (child, type, name);
    }
}

/*
 * _pd_list_views_name:
 * @root: a combo row, a column view
 * @name: what its lists are called
 *
 * Names each GtkListView below @root (a combo row's shown choice and open
 * list, a column view's rows) @name.
 */
void
_pd_list_views_name (GtkWidget  *root,
                     const char *name)
{
  name_lists (root, GTK_TYPE_LIST_VIEW, name);
}

static const char *
first_row_title (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *title = ADW_IS_PREFERENCES_ROW (child)
                          ? adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child))
                          : first_row_title (child);

      if (title != NULL && title[0] != '\0')
        return title;
    }
  return NULL;
}

/*
 * _pd_preferences_groups_name_lists:
 * @root: a window
 *
 * Names the list of each preferences group below @root without a title by
 * its first row's title: libadwaita 1.2 names a group's list by the
 * group's title label, and an empty one said "GtkLabel".
 */
void
_pd_preferences_groups_name_lists (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (ADW_IS_PREFERENCES_GROUP (child))
        {
          g_autofree char *title = NULL;
          const char *name;

          /* With a title, libadwaita 1.2 names the list by it. */
          g_object_get (child, "title", &title, NULL);
          name = title != NULL && title[0] != '\0' ? NULL : first_row_title (child);
          if (name != NULL)
            {
              g_autofree char *plain = NULL;
              GString *no_mnemonic = g_string_new (NULL);

              for (const char *p = name; *p != '\0'; p++)
                if (*p != '_')
                  g_string_append_c (no_mnemonic, *p);
              plain = g_string_free (no_mnemonic, FALSE);
              name_lists (child, GTK_TYPE_LIST_BOX, plain);
            }
        }
      _pd_preferences_groups_name_lists (child);
    }
}

/*
 * _pd_preferences_group_name_list:
 * @group: a preferences group with a title
 *
 * Names @group's list by its title: a group made in code and given its
 * title after (the Alerts page's) had a list with no name, "GtkListBox".
 */
void
_pd_preferences_group_name_list (AdwPreferencesGroup *group)
{
  name_lists (GTK_WIDGET (group), GTK_TYPE_LIST_BOX, adw_preferences_group_get_title (group));
}

/*
 * _pd_list_boxes_name:
 * @root: a widget
 * @name: what its lists are called
 *
 * Names each GtkListBox below @root @name.
 */
void
_pd_list_boxes_name (GtkWidget  *root,
                     const char *name)
{
  name_lists (root, GTK_TYPE_LIST_BOX, name);
}

/*
 * _pd_window_keep_role:
 * @window: a window of ours, from its instance init, before its content
 *
 * Gives @window its class's role (a window's, a dialog's) for AT-SPI.
 * GTK 4.8 makes a widget's accessible context in GtkWidget's own init,
 * with GtkWidget's placeholder role, and puts the class's role on it only
 * when it hands the context to AT-SPI itself. A change in a window being
 * built (a status page's scroller leaving the Tab chain, a focus set)
 * handed its contexts, the window's too, to AT-SPI earlier, with the
 * placeholder for good: a window opened while the app ran (the demo's, a
 * second database's) was a "filler" with no frame role, read over AT-SPI
 * as a screen reader does. The role set here is on the context before
 * anything can hand it over.
 */
void
_pd_window_keep_role (GtkWindow *window)
{
  GtkAccessibleRole role = gtk_widget_class_get_accessible_role (GTK_WIDGET_GET_CLASS (window));

  g_object_set (window, "accessible-role", role, NULL);
}

#define IMAGE_KEY "pd-image-speaks"

/* An icon of GTK's or libadwaita's own that says again what its row or
 * tab says: an expander row's or a combo row's arrow, a page tab's icon. */
static gboolean
image_is_decoration (GtkWidget *image)
{
  GtkWidget *parent = gtk_widget_get_parent (image);

  return gtk_widget_has_css_class (image, "expander-row-arrow") ||
         gtk_widget_has_css_class (image, "dropdown-arrow") ||
         (parent != NULL && g_str_equal (G_OBJECT_TYPE_NAME (parent), "AdwIndicatorBin"));
}

/* A decoration is kept out of the reader's tree (GTK 4.8 puts it back
 * each time it is shown); an icon with a tooltip (a password field's
 * Show Text, its Caps Lock warning) is named by it. */
static void
image_sync (GtkWidget *image)
{
  const char *tooltip = gtk_widget_get_tooltip_text (image);

  if (tooltip != NULL && *tooltip != '\0')
    gtk_accessible_update_property (GTK_ACCESSIBLE (image), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
  else if (image_is_decoration (image))
    gtk_accessible_update_state (GTK_ACCESSIBLE (image), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
}

/*
 * _pd_images_speak:
 * @root: a widget
 *
 * The icons below @root that GTK and libadwaita make were each said as
 * "GtkImage" by a reader browsing object by object (tried as a screen
 * reader user would): the arrows of expander and combo rows and the
 * icons of page tabs are left out, the icons of a password field named
 * by their tooltips.
 */
void
_pd_images_speak (GtkWidget *root)
{
  if (GTK_IS_IMAGE (root) && g_object_get_data (G_OBJECT (root), IMAGE_KEY) == NULL &&
      (image_is_decoration (root) || gtk_widget_get_tooltip_text (root) != NULL ||
       gtk_widget_get_ancestor (root, GTK_TYPE_PASSWORD_ENTRY) != NULL))
    {
      g_object_set_data (G_OBJECT (root), IMAGE_KEY, GINT_TO_POINTER (1));
      g_signal_connect (root, "notify::visible", G_CALLBACK (image_sync), NULL);
      g_signal_connect (root, "notify::tooltip-text", G_CALLBACK (image_sync), NULL);
      image_sync (root);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    _pd_images_speak (child);
}

/*
 * _pd_scrollbar_speak:
 * @widget: any widget
 *
 * Names @widget, when it is a scroll bar, by its direction, once.
 */
void
_pd_scrollbar_speak (GtkWidget *widget)
{
  if (!GTK_IS_SCROLLBAR (widget) || g_object_get_data (G_OBJECT (widget), "pd-scrollbar-named") != NULL)
    return;
  g_object_set_data (G_OBJECT (widget), "pd-scrollbar-named", GINT_TO_POINTER (1));
  gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_orientable_get_orientation (GTK_ORIENTABLE (widget)) == GTK_ORIENTATION_HORIZONTAL
                                  /* Translators: a screen reader's name of a scroll bar */
                                  ? _("Horizontal Scroll Bar") : _("Vertical Scroll Bar"),
                                  -1);
}

/* The emission hook of GtkWidget::realize. */
static gboolean
on_realize_hook (GSignalInvocationHint *hint,
                 guint                  n_params,
                 const GValue          *params,
                 gpointer               data)
{
  _pd_scrollbar_speak (g_value_get_object (&params[0]));
  _pd_stack_speak (g_value_get_object (&params[0]));
  _pd_scroller_speak (g_value_get_object (&params[0]));
  return TRUE;
}

/*
 * _pd_scrollbars_speak:
 *
 * From now on, every scroll bar of the process is named as it is
 * realized: GTK 4.8 names none, and AT-SPI said "GtkScrollbar" for each
 * one a screen reader browsed to (the Preferences' pages, an approval's
 * command).  Those never shown (an overlay one, one of a page not shown)
 * are still in the tree a reader browses: each window names its own as it
 * is shown (_pd_name_mnemonic_buttons()).
 */
void
_pd_scrollbars_speak (void)
{
  static gsize hooked = 0;

  if (g_once_init_enter (&hooked))
    {
      g_signal_add_emission_hook (g_signal_lookup ("realize", GTK_TYPE_WIDGET), 0, on_realize_hook, NULL, NULL);
      g_once_init_leave (&hooked, 1);
    }
}

/* The response box a message dialog shows is the only one a reader meets. */
static void
sync_response_boxes (GtkWidget *squeezer)
{
  GtkWidget *shown = adw_squeezer_get_visible_child (ADW_SQUEEZER (squeezer));

  for (GtkWidget *box = gtk_widget_get_first_child (squeezer); box != NULL;
       box = gtk_widget_get_next_sibling (box))
    gtk_accessible_update_state (GTK_ACCESSIBLE (box), GTK_ACCESSIBLE_STATE_HIDDEN, box != shown, -1);
}

static GtkWidget *
find_squeezer (GtkWidget *widget)
{
  if (ADW_IS_SQUEEZER (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_squeezer (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/*
 * _pd_message_dialog_responses_once:
 * @dialog: an #AdwMessageDialog, its responses added
 *
 * libadwaita 1.2's message dialog makes each response's button twice, in
 * a row and in a column, and shows one of the two boxes (an #AdwSqueezer
 * picks by the width); GTK 4.8 gives a reader both, the one not shown
 * too, and the approval's Deny, Always and Approve Once were each met
 * twice (tried with a screen reader's view).  The box not shown is kept
 * out of the reader's tree, whichever it is as the dialog's width
 * changes.
 */
void
_pd_message_dialog_responses_once (GtkWidget *dialog)
{
  GtkWidget *squeezer;

  g_return_if_fail (ADW_IS_MESSAGE_DIALOG (dialog));

  squeezer = find_squeezer (dialog);
  if (squeezer == NULL || g_object_get_data (G_OBJECT (squeezer), "pd-responses-once") != NULL)
    return;
  g_object_set_data (G_OBJECT (squeezer), "pd-responses-once", GINT_TO_POINTER (TRUE));
  g_signal_connect (squeezer, "notify::visible-child", G_CALLBACK (sync_response_boxes), NULL);
  sync_response_boxes (squeezer);
}

/**
 * _pd_session_heading_set:
 * @label: a page's heading label, of the role heading
 * @title: (nullable): the session's title, anyone's text (the agent's)
 *
 * Heads a page with the session's title, plain, whole and wrapped, hidden
 * with no session: the Transcript and Events pages had none, the Now and
 * History pages did (tried with a screen reader, issue 23).  A screen
 * reader names the heading by the whole title, and its tooltip shows it
 * where the label cuts it.
 */
void
_pd_session_heading_set (GtkLabel   *label,
                         const char *title)
{
  g_autofree char *safe = title != NULL && title[0] != '\0' ? _pd_isolated_short (title, 240) : NULL;
  g_autofree char *spoken = safe != NULL ? _pd_accessible_text (safe) : NULL;

  _pd_label_no_hyphens (GTK_WIDGET (label));
  gtk_label_set_text (label, safe != NULL ? safe : "");
  gtk_widget_set_visible (GTK_WIDGET (label), safe != NULL);
  gtk_widget_set_tooltip_text (GTK_WIDGET (label), safe);
  if (spoken != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_LABEL, spoken, -1);
}

/* Containers and decorations of GTK 4.8 and libadwaita 1.2 that a screen
 * reader met by their class: "AdwGizmo" (a leaflet's shadow, a switcher
 * button's parts), "GtkRange" (a scroll bar's inside), "AdwIndicatorBin",
 * "AdwSqueezer", "AdwLeaflet", "GtkOverlay"… (read over AT-SPI, issue 23).
 * GTK names an object of no structural role by its class; these hold or
 * draw what speaks for itself, and are made generic containers, which
 * GTK 4.8 leaves unnamed and keeps in the tree with what they hold.  A
 * widget's role is fixed once it has an accessible object (GTK 4.8 makes
 * one as the widget is first shown or hidden): the classes are changed
 * before any of the window's widgets is made. */
static const char * const structural_types[] = {
  "AdwGizmo", "AdwIndicatorBin", "AdwSqueezer", "AdwLeaflet", "AdwClampScrollable",
  "AdwViewSwitcherTitle", "AdwViewSwitcherBar", "AdwWindowTitle", "GtkOverlay",
  "GtkActionBar", "GtkPanedHandle", "GtkRange", "GtkBuiltinIcon", "GtkSpinner",
  "GtkTooltipWindow", "GtkPopoverContent",
};

static void
quiet_known_classes (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (structural_types); i++)
    {
      GType type = g_type_from_name (structural_types[i]);
      GtkWidgetClass *klass;

      if (type == 0)
        continue;
      klass = g_type_class_ref (type);
      if (gtk_widget_class_get_accessible_role (klass) == GTK_ACCESSIBLE_ROLE_WIDGET)
        gtk_widget_class_set_accessible_role (klass, GTK_ACCESSIBLE_ROLE_GENERIC);
      g_type_class_unref (klass);
    }
}

/**
 * _pd_a11y_quiet_classes:
 *
 * Makes the containers and decorations above generic, for every widget
 * of theirs made from now on: called before the first window is made.
 * The types GTK and libadwaita keep private are known once a widget of
 * theirs was made: a leaflet (its shadow's gizmos), a page switcher (its
 * buttons' indicator bins), a paned (its handle), a check button (its
 * icon) and a tooltip (its window) are made and dropped first.
 */
void
_pd_a11y_quiet_classes (void)
{
  static gboolean done;
  GtkWidget *made[4];
  AdwViewStack *stack;

  if (done)
    return;
  done = TRUE;
  /* The public ones known by their type. */
  g_type_ensure (ADW_TYPE_SQUEEZER);
  g_type_ensure (ADW_TYPE_LEAFLET);
  g_type_ensure (ADW_TYPE_CLAMP_SCROLLABLE);
  g_type_ensure (ADW_TYPE_VIEW_SWITCHER_TITLE);
  g_type_ensure (ADW_TYPE_VIEW_SWITCHER_BAR);
  g_type_ensure (ADW_TYPE_WINDOW_TITLE);
  g_type_ensure (GTK_TYPE_OVERLAY);
  g_type_ensure (GTK_TYPE_ACTION_BAR);
  g_type_ensure (GTK_TYPE_RANGE);
  g_type_ensure (GTK_TYPE_SPINNER);
  quiet_known_classes ();
  stack = ADW_VIEW_STACK (adw_view_stack_new ());
  adw_view_stack_add_titled (stack, gtk_label_new (NULL), "page", "Page");
  made[0] = adw_view_switcher_new ();
  adw_view_switcher_set_stack (ADW_VIEW_SWITCHER (made[0]), stack);
  made[1] = adw_leaflet_new ();
  made[2] = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  made[3] = gtk_check_button_new ();
  g_object_ref_sink (stack);
  for (guint i = 0; i < G_N_ELEMENTS (made); i++)
    g_object_ref_sink (made[i]);
  /* A tooltip's window, a child of the window over AT-SPI while shown. */
  g_object_unref (g_object_new (GTK_TYPE_TOOLTIP, NULL));
  /* A popover's content box (a menu's: "GtkPopoverContent"). */
  g_object_unref (g_object_ref_sink (gtk_popover_new ()));
  quiet_known_classes ();
  for (guint i = 0; i < G_N_ELEMENTS (made); i++)
    g_object_unref (made[i]);
  g_object_unref (stack);
}

static void
name_switchers (GtkWidget *widget)
{
  if (ADW_IS_VIEW_SWITCHER (widget))
    /* Translators: the spoken name of the row of page buttons (Now, Transcript, …) */
    gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Pages"), -1);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    name_switchers (child);
}

/**
 * _pd_a11y_name_switchers:
 * @root: a window as its template made it
 *
 * Names @root's page switchers "Pages": a reader met them as
 * "AdwViewSwitcher" (read over AT-SPI, issue 23).
 */
void
_pd_a11y_name_switchers (GtkWidget *root)
{
  name_switchers (root);
}

/* --- the main menu's focus given back ----------------------------------- */

#define MENU_FROM_KEY "pd-menu-focus-from"

typedef struct
{
  GtkWidget *button;   /* (unowned) the menu button: it holds this */
  GWeakRef   from;     /* where the focus was as the menu opened */
  GWeakRef   last;     /* where it was last outside the menu */
} MenuFocus;

static void
menu_focus_free (gpointer data)
{
  MenuFocus *menu = data;

  g_weak_ref_clear (&menu->from);
  g_weak_ref_clear (&menu->last);
  g_free (menu);
}

/* The focus moved: where it was last outside the menu (on its button too). */
static void
on_focus_moved (GtkWindow  *window,
                GParamSpec *pspec,
                GtkWidget  *button)
{
  MenuFocus *menu = g_object_get_data (G_OBJECT (button), MENU_FROM_KEY);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  GtkWidget *popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));

  if (focus != NULL && (popover == NULL || (focus != popover && !gtk_widget_is_ancestor (focus, popover))))
    g_weak_ref_set (&menu->last, focus);
}

/* GTK has put the focus in the menu already: where it was before.  Opened
 * from its button (a click, or Enter on it), the button keeps it. */
static void
on_menu_shown (GtkWidget *popover,
               MenuFocus *menu)
{
  g_autoptr(GtkWidget) last = g_weak_ref_get (&menu->last);

  g_weak_ref_set (&menu->from, last != NULL && last != menu->button && !gtk_widget_is_ancestor (last, menu->button) ? last : NULL);
}

static gboolean
menu_focus_back (gpointer data)
{
  MenuFocus *menu = data;
  g_autoptr(GtkWidget) from = g_weak_ref_get (&menu->from);
  GtkRoot *root = gtk_widget_get_root (menu->button);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  g_weak_ref_set (&menu->from, NULL);
  /* Only where GTK put it, on the button: an item's dialog or page that
   * took the focus keeps it. */
  if (from != NULL && gtk_widget_get_mapped (from) &&
      (focus == NULL || focus == menu->button || gtk_widget_is_ancestor (focus, menu->button)))
    gtk_widget_grab_focus (from);
  g_object_unref (menu->button);
  return G_SOURCE_REMOVE;
}

static void
on_menu_closed (GtkWidget *popover,
                MenuFocus *menu)
{
  /* After GTK gave the focus to the button. */
  g_idle_add (menu_focus_back, menu);
  g_object_ref (menu->button);
}

/**
 * _pd_menu_buttons_return_focus:
 * @root: a widget
 *
 * The main menu opened with F10 from a row, then closed with Escape, left
 * the focus on its Main Menu button, not on the row (tried as a new user
 * would, with a screen reader; Shift+F10's row menu gave it back).  Each
 * menu button below @root opened while the focus was elsewhere gives the
 * focus back there as it closes, when GTK put it on the button.
 */
void
_pd_menu_buttons_return_focus (GtkWidget *root)
{
  if (GTK_IS_MENU_BUTTON (root) && g_object_get_data (G_OBJECT (root), MENU_FROM_KEY) == NULL &&
      gtk_menu_button_get_popover (GTK_MENU_BUTTON (root)) != NULL)
    {
      GtkWidget *popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (root)));
      MenuFocus *menu = g_new0 (MenuFocus, 1);

      menu->button = root;
      g_weak_ref_init (&menu->from, NULL);
      g_weak_ref_init (&menu->last, NULL);
      g_object_set_data_full (G_OBJECT (root), MENU_FROM_KEY, menu, menu_focus_free);
      g_signal_connect (popover, "show", G_CALLBACK (on_menu_shown), menu);
      g_signal_connect (popover, "closed", G_CALLBACK (on_menu_closed), menu);
      /* The window outlives its buttons. */
      if (GTK_IS_WINDOW (gtk_widget_get_root (root)))
        g_signal_connect_object (gtk_widget_get_root (root), "notify::focus-widget", G_CALLBACK (on_focus_moved),
                                 root, 0);
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    _pd_menu_buttons_return_focus (child);
}

/**
 * _pd_search_may_return_to:
 * @widget: where the focus was as the session search opened
 *
 * A header bar's button other than Search is no place to give the focus
 * back to as the search closes: Escape left it on Main Menu (where it had
 * stayed after its menu), the open session's row scrolled out of sight
 * (tried as a new user would, nu19 #5).  The open session's row takes it.
 *
 * Returns: whether the focus goes back to @widget
 */
gboolean
_pd_search_may_return_to (GtkWidget *widget)
{
  GtkWidget *button = GTK_IS_BUTTON (widget) ? widget : gtk_widget_get_ancestor (widget, GTK_TYPE_BUTTON);

  if (button == NULL || (gtk_widget_get_ancestor (button, ADW_TYPE_HEADER_BAR) == NULL &&
                         gtk_widget_get_ancestor (button, GTK_TYPE_HEADER_BAR) == NULL))
    return TRUE;
  return g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), "win.search") == 0;
}
