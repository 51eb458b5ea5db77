/* pd-ui-tooltips.c: a tooltip kept off what its widget has just opened
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GTK 4.8 shows a widget's tooltip while the pointer rests on it, also
 * once its popover is open: "Main Menu" lay over the menu's "Session"
 * heading, and New Session's "OpenAI-compatible" over the Provider's list
 * of choices (tried as a new user would, nu15 #10, nu19 #8).  While the
 * popover is shown its owner has no tooltip; as it closes, what it had
 * comes back.
 */
#define G_LOG_DOMAIN "pd-ui-tooltips"

#include "config.h"

#include "pd-ui-util-private.h"

#define QUIET_KEY "pd-tooltip-quiet"
#define HAD_KEY   "pd-tooltip-had"

static void
on_popover_visible (GtkWidget  *popover,
                    GParamSpec *pspec,
                    GtkWidget  *owner)
{
  if (gtk_widget_get_visible (popover))
    {
      g_object_set_data (G_OBJECT (owner), HAD_KEY, GINT_TO_POINTER (gtk_widget_get_has_tooltip (owner)));
      gtk_widget_set_has_tooltip (owner, FALSE);
      /* The one shown already goes too. */
      gtk_widget_trigger_tooltip_query (owner);
    }
  else if (g_object_get_data (G_OBJECT (owner), HAD_KEY) != NULL)
    {
      gtk_widget_set_has_tooltip (owner, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (owner), HAD_KEY)));
      g_object_set_data (G_OBJECT (owner), HAD_KEY, NULL);
    }
}

/*
 * _pd_tooltip_quiet_while_open:
 * @owner: a widget with a tooltip (a menu button, a combo row)
 * @popover: the popover @owner opens
 *
 * Hides @owner's tooltip while @popover is shown.
 */
void
_pd_tooltip_quiet_while_open (GtkWidget *owner,
                              GtkWidget *popover)
{
  g_return_if_fail (GTK_IS_WIDGET (owner));
  g_return_if_fail (GTK_IS_POPOVER (popover));

  if (g_object_get_data (G_OBJECT (popover), QUIET_KEY) != NULL)
    return;
  g_object_set_data (G_OBJECT (popover), QUIET_KEY, owner);
  g_signal_connect_object (popover, "notify::visible", G_CALLBACK (on_popover_visible), owner, 0);
}

static GtkWidget *
find_popover (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = GTK_IS_POPOVER (child) ? child : find_popover (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/*
 * _pd_popover_tooltips_quiet:
 * @root: a widget
 *
 * Each menu button and combo row below @root (and @root itself) has no
 * tooltip while its popover is open.
 */
void
_pd_popover_tooltips_quiet (GtkWidget *root)
{
  GtkWidget *popover = NULL;

  if (GTK_IS_MENU_BUTTON (root))
    popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (root)));
  else if (ADW_IS_COMBO_ROW (root) || GTK_IS_DROP_DOWN (root))
    popover = find_popover (root);
  if (popover != NULL)
    {
      _pd_tooltip_quiet_while_open (root, popover);
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    _pd_popover_tooltips_quiet (child);
}
