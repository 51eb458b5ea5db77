/* bench-redact.c: how fast pd_redact() goes over text like what is stored.
 *
 * usage: bench-redact [MB [KIB]]
 *
 * Redaction runs on every message, plan and event saved, so it must stay
 * linear and cheap.  Three corpora:
 *  - transcripts: the string values of the shared fixture transcripts
 *    (../shared/fixtures; left out with a note when absent);
 *  - synthetic: MB of lines shaped like agent sessions (code, shell output,
 *    JSON tool calls, config files and .env files, URLs), with a secret in
 *    about one line in fifty;
 *  - adversarial: texts built to make a regex backtrack (long names with no
 *    separator, assignments with no value, URLs with no '@', private key
 *    headers with no end, many "Bearer ", values joined of quoted parts,
 *    a client's password option before a quote never closed, backslashes
 *    before line breaks and quotes),
 *    each at 1 MiB and 4 MiB (KIB and 4 × KIB when given: a quadratic text
 *    takes hours at 4 MiB, so a run before a fix is made smaller): the
 *    ratio of their times shows whether the cost stays linear (≈ 4), and
 *    the last column their cost per byte at the larger size as a multiple
 *    of the synthetic sessions' (the plain-text baseline).
 * Times are CPU time of the thread.  Prints figures; asserts nothing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include <json-glib/json-glib.h>

#include "pd-redact.h"

static void
collect_strings (JsonNode  *node,
                 GPtrArray *out)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        JsonNode *member;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, NULL, &member))
          collect_strings (member, out);
      }
      break;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        for (guint i = 0; i < json_array_get_length (array); i++)
          collect_strings (json_array_get_element (array, i), out);
      }
      break;
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING)
        g_ptr_array_add (out, g_strdup (json_node_get_string (node)));
      break;
    case JSON_NODE_NULL:
    default:
      break;
    }
}

static void
collect_dir (const char *dir,
             GPtrArray  *out)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle && (name = g_dir_read_name (handle)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *contents = NULL;
      g_auto(GStrv) lines = NULL;

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          collect_dir (path, out);
          continue;
        }
      if (!g_str_has_suffix (name, ".jsonl") && !g_str_has_suffix (name, ".json"))
        continue;
      if (!g_file_get_contents (path, &contents, NULL, NULL))
        continue;
      lines = g_strsplit (contents, "\n", -1);
      for (guint i = 0; lines[i]; i++)
        {
          g_autoptr(JsonNode) node = json_from_string (lines[i], NULL);

          if (node != NULL)
            collect_strings (node, out);
        }
    }
}

static const char * const plain_lines[] = {
  "    for (guint i = 0; i < items->len; i++)",
  "      g_ptr_array_add (out, g_strdup (json_node_get_string (node)));",
  "def tokenize(text: str, max_tokens: int = 4096) -> list[str]:",
  "Running 42 tests... ok 41, failed 1 (test_keyboard_layout)",
  "{\"command\":\"ls -la src/\",\"timeout\":120,\"description\":\"List the source folder\"}",
  "The author of this module describes the cache key as a hash of the path.",
  "KEYBOARD_LAYOUT=us",
  "TOKENIZER=bpe",
  "See https://docs.example.org/guide/install#requirements for the list.",
  "drwxr-xr-x  5 user user  4096 Nov 30 10:12 node_modules",
  "error[E0308]: mismatched types: expected `u32`, found `i64` at src/main.rs:88:17",
  "input_tokens: 1532, output_tokens: 418, cache_read_input_tokens: 0",
  "git push origin feature/redaction-rules && git log --oneline -3",
  "SELECT id, name FROM users WHERE primary_key = 7 ORDER BY sort_key;",
  "  \"dependencies\": { \"express\": \"^4.18.2\", \"monkey-patch\": \"1.0.0\" },",
  "I will now update the plan: step 2 is done, step 3 (write the tests) is next.",
};

static const char * const secret_lines[] = {
  "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "export DATABASE_PASSWORD='correct horse'",
  "GITLAB_TOKEN=glpat-xxxxxxxxxxxxxxxxxxxx",
  "postgres://app:s3cr3t@db.internal:5432/app",
  "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA==' https://api.example.com",
  "OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_yz0123456789",
};

static GPtrArray *
synthetic_corpus (gsize bytes)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  GRand *rand = g_rand_new_with_seed (7);
  gsize total = 0;

  while (total < bytes)
    {
      /* A message of 10 to 60 lines, as a tool result or an answer is. */
      GString *text = g_string_new (NULL);
      guint n = g_rand_int_range (rand, 10, 60);

      for (guint i = 0; i < n; i++)
        {
          if (g_rand_int_range (rand, 0, 50) == 0)
            g_string_append (text, secret_lines[g_rand_int_range (rand, 0, G_N_ELEMENTS (secret_lines))]);
          else
            g_string_append (text, plain_lines[g_rand_int_range (rand, 0, G_N_ELEMENTS (plain_lines))]);
          g_string_append_c (text, '\n');
        }
      total += text->len;
      g_ptr_array_add (texts, g_string_free (text, FALSE));
    }
  g_rand_free (rand);
  return texts;
}

/* CPU seconds of this thread: the machine is shared, and wall time would
 * count the other jobs too. */
static double
cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds for one pass of pd_redact() over @texts (best of @rounds). */
static double
time_pass (GPtrArray *texts,
           guint      rounds,
           gsize     *bytes,
           guint     *redacted)
{
  double best = G_MAXDOUBLE;

  for (guint r = 0; r < rounds; r++)
    {
      double start = cpu_seconds ();
      gsize sum = 0;
      guint count = 0;

      for (guint i = 0; i < texts->len; i++)
        {
          guint n = 0;
          g_autofree char *out = pd_redact (g_ptr_array_index (texts, i), &n);

          sum += strlen (g_ptr_array_index (texts, i));
          count += n;
        }
      best = MIN (best, cpu_seconds () - start);
      *bytes = sum;
      *redacted = count;
    }
  return best;
}

/* Returns the MB/s. */
static double
report (const char *name,
        GPtrArray  *texts,
        guint       rounds)
{
  gsize bytes = 0;
  guint redacted = 0;
  double seconds = time_pass (texts, rounds, &bytes, &redacted);

  g_print ("%-28s %9.2f MB in %6u texts: %8.4f s, %8.1f MB/s, %u redacted\n",
           name, bytes / 1e6, texts->len, seconds, bytes / 1e6 / MAX (seconds, 1e-9), redacted);
  return bytes / 1e6 / MAX (seconds, 1e-9);
}

static char *
repeat (const char *unit,
        gsize       bytes)
{
  GString *out = g_string_sized_new (bytes + strlen (unit));

  while (out->len < bytes)
    g_string_append (out, unit);
  return g_string_free (out, FALSE);
}

int
main (int   argc,
      char *argv[])
{
  static const struct { const char *name; const char *unit; const char *prefix; } adversarial[] = {
    { "long name, no separator", "AUTH_TOKEN_SECRET_KEY_PASSWORD_" },
    { "names with no value", "password= token: api_key= " },
    { "name, separator, name", "secret=secret=secret=" },
    { "values that are code", "password=f(token=g(secret=h(" },
    { "URLs with no '@'", "https://user:pass/" },
    { "URL userinfo, no host end", "ftp://a:b" },
    { "key header, no end", "-----BEGIN RSA PRIVATE KEY-----\\nMIIE" },
    { "Bearer, short token", "Bearer abc " },
    { "Authorization, no value", "Authorization: " },
    { "prefixes, too short", "sk-ab ghp_x AKIA1 glpat-x npm_x xoxb-1 eyJx.y " },
    { "dotted words (JWT-like)", "eyJhbGciOiJIUzI1NiJ9." },
    { "joined quoted parts", "password='a'\"b\"c " },
    { "joined parts, no close", "mysql -p'a'\"b password='x'\"" },
    { "option words, no client", "-p -p -p -a -w -P -u " },
    { "option words of mysql", "mysql -u a -v -v -v -v -v -v -v -v -v -v -v -v " },
    { "--pass repeated", "--pass --pass " },
    { "registry login, -p -p", "docker login -p -p -p -p -p -p -p " },
    { "heredocs", "<<<<<<" },
    { "values with shell signs", "PGPASSWORD=\"a;b\" " },
    /* Each value refused (it holds an option) read the command line again
     * from the start: quadratic (1 MiB took 77 s). */
    { "mysql -p\" never closed", "mysql -p\"" },
    { "mysql -p' never closed", "mysql -p'" },
    { "sshpass -p \" never closed", "sshpass -p \"" },
    { "redis-cli -a \" never closed", "redis-cli -a \"" },
    { "docker login -p \"", "docker login -p \"" },
    /* The command of each secret-named long option is read: psql's
     * --password is a flag. */
    { "psql --password repeated", "psql --password a " },
    /* Backslashes: line continuations before no value, values going on
     * after an escaped quote, escaped quotes read on to their mate. */
    { "continuations, no value", "PGPASSWORD=\\\n x PASSWORD=\\\\\\n " },
    { "escaped quotes in a value", "token=a\\\"" },
    { "escaped quote, no mate", "PGPASSWORD=\\\"a b " },
    { "curl -u \\\"u:, no mate", "curl -u \\\"u:a b " },
    /* The depths of JSON strings (one pass, or two when the text's first
     * quote closes one) and values read through their escapes. */
    { "JSON strings, escaped values", "{\"c\":\"PGPASSWORD='a\\\\nb' x\"}," },
    { "JSON strings held in strings", "{\"a\":\"{\\\"b\\\":\\\"mysql -p$'x\\\\\\\\n'\\\"" },
    { "a piece cut from a string", "x\", \"PGPASSWORD=\\\"a\\\\nb\\\" " },
    /* One value of escaped quotes: each \\\" after PGPASSWORD=" was masked
     * apart with a lookahead of 256 bytes (1.5-1.8 s per MiB). */
    { "escaped quotes after one \"", "\\\\\\\"", "PGPASSWORD=\"" },
    /* A quoted value's closing quote read as opening a part of its word:
     * the rest of the text was read after each value (quadratic: 200 KB
     * took 26.7 s through plandeck-agent run). */
    { "curl -u \"admin:a\\\\\" repeated", "curl -u \"admin:a\\\\\"" },
    { "curl -u \"admin:a\" repeated", "curl -u \"admin:a\"" },
    /* A literal default of an expansion, masked inside its braces. */
    { "expansion defaults", "PGPASSWORD=${X:-a} " },
    /* The variables a text runs, read once (pd-redact-runs.c), and the
     * spellings read forward from where they start (pd-redact-spellings.c). */
    { "variables run", "API_TOKEN=ab; eval \"$API_TOKEN\" | sh -c \"$X\" " },
    { "substitutions never closed", "$(`$(", "API_TOKEN=x; " },
    { "pipes into shells", "echo \"$API_TOKEN $X\" | sh | ", "API_TOKEN=x; " },
    { "functions, chains, loops", "f() { eval \"$1\"; }; X=$Y; f \"$X\"; for t in $X; do $t; done; ", "API_TOKEN=x; " },
    { "echo into pipes", "echo a | echo a | " },
    { "here-strings", "sudo -S x <<< a " },
    { "connect strings", "a/b ", "sqlplus " },
    { "cookies", "Cookie: a=bcdefgh; " },
    { "XML elements", "<password>x</password>" },
    { "vault login, options", "vault login -x -x -x " },
    /* The settings of pd-redact-settings.c: each read a bounded way on. */
    { "nmcli repeated", "nmcli " },
    { "nmcli settings", "wifi-sec.psk x 802-1x.password y ", "nmcli " },
    { "IDENTIFIED BY repeated", "user u identified by " },
    { "PASSWORD ' never closed", "password '" },
    { "YAML blocks", "password: |\n  x\n" },
    { "YAML block lines", "  x\n", "password: |\n" },
    { "npm config set", "npm config set _authToken x " },
    { ".NET add elements", "<add key=\"Password\" value=\"x\"/>" },
    { "sed programs", "'s/^API_TOKEN=//p' ", "sed " },
    { "cookies of settings", "Cookie: theme=darkmode; " },
    /* Round 13's spellings: each read a bounded way on. */
    { "ssh-keygen -qN repeated", "-qN -qN ", "ssh-keygen " },
    { "mysql --pas= repeated", "--pas= ", "mysql " },
    { "PASSWORD $tag$ never closed", "password $pw$a " },
    { "IDENTIFIED over lines", "create user u\n identified\n by\n" },
    { "YAML keys, value under", "password:\n  x\n" },
    { "YAML keys, nothing under", "password:\n" },
    { "<add, never closed", "<add value=\"x\" key=\"Password\" " },
    { "AUTH into redis-cli", "echo 'AUTH a b c' | redis-cli; " },
    { "AUTH repeated", "auth ", "echo 'AUTH " },
    { "scheme gaps, escaped blanks", "Authorization:Bearer\\ \\\t" },
    { "scheme gaps, quotes open", "Authorization:Bearer' \" $'\\t " },
    { "bearer, quoted blanks", "Bearer' 'Bearer\" \"Bearer$'\\x20'" },
    { "cookies, escaped blanks", "Cookie:\\ \\ " },
    /* Round 14's: quotes bash takes out of the word, one gap to the end. */
    { "scheme gap of empty quotes", "''\"\"\\ $'\\v'", "Authorization:Bearer" },
    { "bearer, empty quotes", "Bearer''\\ ''" },
    { "cookie gap of quoted blanks", "' '$'\\t'", "curl -H Cookie:" },
    { "keys, quoted blanks", "X-Api-Key:' 'x " },
    { "key gap of quoted blanks", "' '$'\\t'\" \"", "curl -H X-Api-Key:" },
    /* A header's word read as bash reads it (pd-redact-header.c): each
     * once, a word never closed read to its bound once. */
    { "header words, dequoted", "-H X-Api-Key:' '$'\\x41bcdefgh' " },
    { "header word, ANSI-C never closed", "$'\\x20\\t", "curl -H Authorization:Bearer" },
    { "header names in quotes", "'X-Api-Key: ' " },
    { "header names, no blank", "X-Api-Key:" },
    /* Round 16's (att16 F2): every word with a quote, a backslash or a $
     * read by the shell-word reader, once; a word too long for it read to
     * its bound once. */
    { "quotes glued, one word", "a'b'" },
    { "header names of quoted parts", "-H \"Authoriz\"ation:' 'Basic' 'x X-Api-K''ey:' 'Zq9Secret " },
    { "curl -u words of quoted parts", "curl -u u:$'p' -uuser:\"a\"'b' " },
    { "names of quoted parts", "A\"_KEY\"=$'v' " },
  };
  guint mb = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 16;
  gsize kib = argc > 2 ? (gsize) g_ascii_strtoull (argv[2], NULL, 10) : 1024;
  double plain;
  g_autofree char *fixtures = g_build_filename (g_getenv ("PD_FIXTURES_DIR") ? g_getenv ("PD_FIXTURES_DIR")
                                                : "../shared/fixtures", NULL);
  g_autoptr(GPtrArray) transcripts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) synthetic = synthetic_corpus ((gsize) MAX (mb, 1) * 1000 * 1000);

  collect_dir (fixtures, transcripts);
  if (transcripts->len > 0)
    report ("transcripts (fixtures)", transcripts, 20);
  else
    g_print ("transcripts (fixtures): skipped, %s not found\n", fixtures);
  plain = report ("synthetic sessions", synthetic, 5);

  g_print ("adversarial (time at %" G_GSIZE_FORMAT " KiB, then 4x that; linear is about 4x; "
           "then the cost per byte as a multiple of the synthetic sessions'):\n", MAX (kib, 1));
  for (guint i = 0; i < G_N_ELEMENTS (adversarial); i++)
    {
      double seconds[2];

      for (guint s = 0; s < 2; s++)
        {
          g_autoptr(GPtrArray) one = g_ptr_array_new_with_free_func (g_free);
          gsize bytes = 0;
          guint redacted = 0;

          g_autofree char *units = repeat (adversarial[i].unit, (s == 0 ? 1 : 4) * MAX (kib, 1) * 1024);

          g_ptr_array_add (one, g_strconcat (adversarial[i].prefix ? adversarial[i].prefix : "", units, NULL));
          seconds[s] = time_pass (one, 3, &bytes, &redacted);
        }
      g_print ("  %-28s %8.4f s, %8.4f s (%5.1fx) %7.1fx plain\n", adversarial[i].name,
               seconds[0], seconds[1], seconds[1] / MAX (seconds[0], 1e-9),
               seconds[1] * plain / (4.0 * MAX (kib, 1) * 1024 / 1e6));
    }
  return 0;
}
