/* test-markdown.c: the renderer of model-written markdown, against the
 * markdown an attacker (or a confused model) writes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What must hold for every input: the text comes back as plain text (no
 * markup is ever parsed: "<b>" and "&amp;" are shown as written), valid
 * UTF-8, every style inside the text, and the time linear in the input.
 */
#include "config.h"

#include <string.h>

#include "pd-markdown.h"
#include "pd-test-ui.h"

/* Renders @markdown and checks what holds for every input. */
static char *
render_checked (const char     *markdown,
                PangoAttrList **attrs_out)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  char *text = pd_markdown_render (markdown, &attrs);
  gsize len = strlen (text);
  g_autoptr(GSList) list = NULL;

  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_nonnull (attrs);
  list = pango_attr_list_get_attributes (attrs);
  for (GSList *l = list; l != NULL; l = l->next)
    {
      PangoAttribute *attr = l->data;

      g_assert_cmpuint (attr->start_index, <, attr->end_index);
      g_assert_cmpuint (attr->end_index, <=, len);
      /* Never inside a UTF-8 sequence. */
      g_assert_true (attr->start_index == len || (text[attr->start_index] & 0xC0) != 0x80);
      g_assert_true (attr->end_index == len || (text[attr->end_index] & 0xC0) != 0x80);
    }
  g_slist_free_full (g_steal_pointer (&list), (GDestroyNotify) pango_attribute_destroy);

  if (attrs_out != NULL)
    *attrs_out = g_steal_pointer (&attrs);
  return text;
}

/* The attribute of @type covering the byte range of @needle in @text. */
static gboolean
has_attr_over (const char     *text,
               PangoAttrList  *attrs,
               PangoAttrType   type,
               const char     *needle)
{
  const char *at = strstr (text, needle);
  guint start, end;
  g_autoptr(GSList) list = NULL;
  gboolean found = FALSE;

  g_assert_nonnull (at);
  start = at - text;
  end = start + strlen (needle);
  list = pango_attr_list_get_attributes (attrs);
  for (GSList *l = list; l != NULL; l = l->next)
    {
      PangoAttribute *attr = l->data;

      if (attr->klass->type == type && attr->start_index <= start && attr->end_index >= end)
        found = TRUE;
    }
  g_slist_free_full (g_steal_pointer (&list), (GDestroyNotify) pango_attribute_destroy);
  return found;
}

static void
test_markdown_styles (void)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *text = render_checked ("# Move the settings\n\n"
                                          "Read **the old file** once, then *write* `settings.toml`.\n\n"
                                          "## Steps\n\n"
                                          "- Parse the INI file\n"
                                          "  - keep unknown keys\n"
                                          "1. Write the TOML file\n"
                                          "- [x] Tests\n\n"
                                          "See [the docs](https://example.org/docs).\n\n"
                                          "```\nmake check\n```\n", &attrs);

  g_assert_cmpstr (text, ==, "Move the settings\n\n"
                             "Read the old file once, then write settings.toml.\n\n"
                             "Steps\n\n"
                             "• Parse the INI file\n"
                             "    • keep unknown keys\n"
                             "1. Write the TOML file\n"
                             "☑ Tests\n\n"
                             "See the docs (https://example.org/docs).\n\n"
                             "make check");
  g_assert_true (has_attr_over (text, attrs, PANGO_ATTR_WEIGHT, "Move the settings"));
  g_assert_true (has_attr_over (text, attrs, PANGO_ATTR_SCALE, "Move the settings"));
  g_assert_true (has_attr_over (text, attrs, PANGO_ATTR_WEIGHT, "the old file"));
  g_assert_true (has_attr_over (text, attrs, PANGO_ATTR_STYLE, "write"));
  g_assert_true (has_attr_over (text, attrs, PANGO_ATTR_FAMILY, "settings.toml"));
  g_assert_true (has_attr_over (text, attrs, PANGO_ATTR_FAMILY, "make check"));
  g_assert_true (has_attr_over (text, attrs, PANGO_ATTR_UNDERLINE, "the docs"));
}

/* Markup, entities and unclosed markers come back as written. */
static void
test_markdown_hostile_text (void)
{
  static const struct { const char *in; const char *out; } cases[] = {
    { "<b>bold?</b> &amp; <span foreground=\"red\">x</span>", "<b>bold?</b> &amp; <span foreground=\"red\">x</span>" },
    { "**unclosed strong", "**unclosed strong" },
    { "*unclosed emphasis", "*unclosed emphasis" },
    { "`unclosed code", "`unclosed code" },
    { "[text](no end", "[text](no end" },
    { "[no link] here", "[no link] here" },
    { "snake_case_name and __init__", "snake_case_name and init" },
    { "&lt;script&gt;", "&lt;script&gt;" },
    { "\\*kept\\*", "*kept*" },
    { "####### seven is not a heading", "####### seven is not a heading" },
    { "```\nnever closed\n<i>code</i>", "never closed\n<i>code</i>" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = render_checked (cases[i].in, NULL);

      g_assert_cmpstr (text, ==, cases[i].out);
    }

  /* Invalid UTF-8 is replaced, never passed on. */
  {
    g_autofree char *text = render_checked ("bad \xff\xfe **bytes**", NULL);

    g_assert_true (g_str_has_suffix (text, "bytes"));
  }

  /* A label shows the text as it is: no markup, ever. */
  {
    GtkWidget *label = gtk_label_new (NULL);

    g_object_ref_sink (label);
    pd_markdown_set_label (GTK_LABEL (label), "**<b>x</b>** &amp;");
    g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "<b>x</b> &amp;");
    g_assert_finalize_object (label);
  }
}

/* 10,000 nested list levels on one line and 2,000 by indentation (4 MB of
 * spaces), 10,000 nested quotes and 100,000 unclosed markers: drawn at a
 * bounded depth, in one pass each. */
static void
test_markdown_deep_nesting (void)
{
  g_autoptr(GString) indented = g_string_new (NULL);
  g_autoptr(GString) one_line = g_string_new (NULL);
  g_autoptr(GString) quotes = g_string_new (NULL);
  g_autoptr(GString) markers = g_string_new (NULL);
  g_autofree char *deepest = NULL;
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < 10000; i++)
    {
      if (i < 2000)
        {
          for (guint j = 0; j < i * 2; j++)
            g_string_append_c (indented, ' ');
          g_string_append_printf (indented, "- level %u\n", i);
        }
      g_string_append (one_line, "- ");
      g_string_append_c (quotes, '>');
    }
  g_string_append (one_line, "deep");
  g_string_append (quotes, " quoted");
  g_string_append (markers, "**");
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (markers, '[');
  g_string_append (markers, "~~ `");

  {
    g_autofree char *text = render_checked (indented->str, NULL);
    g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
    g_autoptr(GString) max_indent = g_string_new (NULL);

    g_assert_cmpuint (g_strv_length (lines), ==, 2000);
    for (guint j = 0; j < PD_MARKDOWN_MAX_DEPTH; j++)
      g_string_append (max_indent, "    ");
    g_string_append (max_indent, "• level 1999");
    g_assert_cmpstr (lines[1999], ==, max_indent->str);
  }
  {
    g_autofree char *text = render_checked (one_line->str, NULL);

    g_assert_true (g_str_has_suffix (text, "• deep"));
    g_assert_cmpuint (strlen (text), <, 64);
  }
  {
    g_autofree char *text = render_checked (quotes->str, NULL);

    g_assert_cmpstr (text, ==, "▎ quoted");
  }
  {
    g_autofree char *text = render_checked (markers->str, NULL);

    g_assert_cmpstr (text, ==, markers->str);
  }

  /* Figures, not a timed assertion: a quadratic renderer takes minutes. */
  g_test_message ("four hostile inputs of %zu KB in all: %.0f ms",
                  (indented->len + one_line->len + quotes->len + markers->len) / 1024,
                  (g_get_monotonic_time () - start) / 1000.0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/ui/markdown/styles", test_markdown_styles);
  g_test_add_func ("/pd/ui/markdown/hostile-text", test_markdown_hostile_text);
  g_test_add_func ("/pd/ui/markdown/deep-nesting", test_markdown_deep_nesting);

  return g_test_run ();
}
