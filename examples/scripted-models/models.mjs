// Plans of the scripted models: what each one does on each example task. build.mjs turns them
// into <model>.json (see the format notes at the top of build.mjs). Scripts do not depend on the
// mode (hinted / navigation): the server never sees the prompt's hints.

const read = (path) => ({ tool: 'read_file', args: { path } });
const list = (path, more = {}) => ({ tool: 'list_directory', args: { path, ...more } });
const search = (query, more = {}) => ({ tool: 'search_file_contents', args: { query, ...more } });
const golden = (...paths) => paths.map((path) => ({ path, from: 'golden' }));
const own = (...paths) => paths.map((path) => ({ path }));

const TEST = {
  textkit: 'node --test test/*.test.js',
  invoicing: 'python3 -m unittest',
  shopfrontPy: "python3 -m unittest discover -s api -p 'test_*.py'",
  shopfrontJs: 'node --test web/test/*.test.js',
  shopfront: "python3 -m unittest discover -s api -p 'test_*.py' && node --test web/test/*.test.js",
};

// How a model finds its way around each task's repository before editing.
const EXPLORE = {
  'textkit-001': [
    list('.', { recursive: true, maxDepth: 2 }),
    search('function truncate'),
    [read('src/truncate.js'), read('test/truncate.test.js')],
  ],
  'textkit-002': [
    list('src'),
    search('text.length', { include: '*.js' }),
    [read('src/truncate.js'), read('src/pad.js'), read('src/index.js')],
    read('src/assert.js'),
  ],
  'invoicing-001': [
    list('.', { recursive: true, maxDepth: 2 }),
    [read('invoicing/invoice.py'), read('invoicing/tax.py')],
    [read('invoicing/discounts.py'), read('invoicing/money.py')],
  ],
  'invoicing-002': [
    list('invoicing'),
    [read('invoicing/invoice.py'), read('invoicing/money.py'), read('invoicing/__init__.py')],
  ],
  'shopfront-001': [
    list('.', { recursive: true, maxDepth: 3 }),
    search('sale_price'),
    [read('api/shopfront_api/serializers.py'), read('api/shopfront_api/catalog.py')],
    [read('web/src/api.js'), read('web/src/productCard.js'), read('web/src/format.js')],
  ],
};

// Only the API half of shopfront: what an agent that never looks at web/ does.
const EXPLORE_SHOPFRONT_API = [
  list('api', { recursive: true }),
  search('sale_price'),
  [read('api/shopfront_api/serializers.py'), read('api/shopfront_api/catalog.py')],
];

// The golden fix of every task (the merged PR's source changes), with a test run.
const CORRECT = {
  'textkit-001': {
    explore: EXPLORE['textkit-001'],
    edits: golden('src/truncate.js'),
    test: TEST.textkit,
    final:
      'Fixed `truncate()`: the ellipsis now counts towards `maxLength` (the text is cut at ' +
      '`maxLength - ellipsis.length`), and when the limit is smaller than the ellipsis the ellipsis ' +
      'itself is cut to the limit. Strings that fit are returned unchanged; the tests pass.',
  },
  'textkit-002': {
    explore: EXPLORE['textkit-002'],
    edits: golden('src/width.js', 'src/truncate.js', 'src/pad.js', 'src/index.js'),
    test: TEST.textkit,
    final:
      'Added `src/width.js` with `displayWidth()` (wide CJK/full-width characters count as two ' +
      'columns, combining marks as zero) and `sliceToWidth()`. `truncate`, `padStart`, `padEnd` and ' +
      '`center` now measure in terminal columns, and `displayWidth` is exported from the package.',
  },
  'invoicing-001': {
    explore: EXPLORE['invoicing-001'],
    edits: golden('invoicing/invoice.py'),
    test: TEST.invoicing,
    final:
      'Tax is now charged on the discounted net: the new `Invoice.taxable_by_rate()` shares the ' +
      'discount between the tax rates in proportion to their nets (rounded to cents, the last rate ' +
      'takes the remainder) and `tax_breakdown()` uses it.',
  },
  'invoicing-002': {
    explore: EXPLORE['invoicing-002'],
    edits: golden('invoicing/schedule.py', 'invoicing/invoice.py', 'invoicing/__init__.py'),
    test: TEST.invoicing,
    final:
      'Added `Invoice.payment_schedule(count, *, start, interval_days=30)`. It returns `Instalment` ' +
      'records (number, due, amount) from the new `invoicing/schedule.py`; amounts are whole cents, ' +
      'leftover cents go to the first instalments, so they add up to the total exactly.',
  },
  'shopfront-001': {
    explore: EXPLORE['shopfront-001'],
    edits: golden('api/shopfront_api/serializers.py', 'web/src/api.js', 'web/src/productCard.js'),
    test: TEST.shopfront,
    // The run above fails one existing web test: its expected client model has no salePrice yet.
    then: { edits: [{ path: 'web/test/api.test.js', from: 'competent' }], test: TEST.shopfrontJs },
    final:
      'The API now serialises `sale_price` (null unless it is below the regular price), the web ' +
      'client maps it to `salePrice`, and product cards show the sale price with the regular price ' +
      'struck through and a "-N%" badge. I also added `salePrice: null` to the expected model in ' +
      '`web/test/api.test.js`, which the new field made outdated; both suites pass.',
  },
};

// Explores like the competent model, then only writes a note into README.md.
function readmeOnly(taskId, final) {
  return { explore: [...EXPLORE[taskId], read('README.md')], edits: own('README.md'), final };
}

// Reads many files around the repository, none of the task's required_files, then writes the
// same README.md note as wrong-files: the whitepaper's context explosion (§2, §9).
const WANDER = {
  'textkit-001': [
    list('.', { recursive: true, maxDepth: 2 }),
    [read('README.md'), read('package.json'), read('src/index.js'), read('src/words.js')],
    [read('src/wrap.js'), read('src/case.js'), read('src/slugify.js'), read('src/accents.js')],
    [read('src/pad.js'), read('src/assert.js'), read('test/wrap.test.js'), read('test/pad.test.js')],
  ],
  'textkit-002': [
    list('.', { recursive: true, maxDepth: 2 }),
    [read('README.md'), read('package.json'), read('src/words.js'), read('src/wrap.js')],
    [read('src/case.js'), read('src/slugify.js'), read('src/accents.js'), read('src/assert.js')],
    [read('test/wrap.test.js'), read('test/case.test.js'), read('test/slugify.test.js')],
  ],
  'invoicing-001': [
    list('.', { recursive: true, maxDepth: 2 }),
    [read('README.md'), read('invoicing/__init__.py'), read('invoicing/discounts.py')],
    [read('invoicing/formatting.py'), read('invoicing/lines.py'), read('invoicing/money.py')],
    [read('invoicing/tax.py'), read('tests/test_formatting.py'), read('tests/test_lines.py')],
    [read('tests/test_money.py'), read('tests/test_tax.py')],
  ],
  'invoicing-002': [
    list('.', { recursive: true, maxDepth: 2 }),
    [read('README.md'), read('invoicing/discounts.py'), read('invoicing/formatting.py')],
    [read('invoicing/lines.py'), read('invoicing/money.py'), read('invoicing/tax.py')],
    [read('tests/test_formatting.py'), read('tests/test_lines.py'), read('tests/test_money.py')],
    [read('tests/test_tax.py'), read('tests/test_invoice.py')],
  ],
  'shopfront-001': [
    list('.', { recursive: true, maxDepth: 3 }),
    [read('README.md'), read('api/shopfront_api/__init__.py'), read('api/shopfront_api/catalog.py')],
    [read('api/shopfront_api/server.py'), read('api/tests/test_catalog.py'), read('scripts/setup.mjs')],
    [read('shared/currencies.json'), read('web/package.json'), read('web/src/format.js')],
    [read('web/src/html.js'), read('web/test/format.test.js')],
  ],
};

function wander(taskId, final) {
  return { explore: WANDER[taskId], edits: [{ path: 'README.md', from: 'wrong-files' }], final };
}

// Backend-only fix of shopfront-001: correct API change, web/ untouched.
const BACKEND_ONLY = {
  explore: EXPLORE_SHOPFRONT_API,
  edits: own('api/shopfront_api/serializers.py'),
  test: TEST.shopfrontPy,
  final:
    'The product serializer now includes `sale_price` (as money, or null when there is no sale ' +
    'or the sale price is not below the regular price). The API tests pass.',
};

// What `competent` answers the bare agent (src/agent/bare.ts), which offers no tools: one reply
// per task, whole-file blocks (build.mjs writes them from the edits) or a text of its own. Without
// the harness it is right on two tasks, calls an API that exists nowhere on two (the
// hallucinator's changes) and answers shopfront-001 with a diff the bare format does not take.
const BARE_COMPETENT = {
  'textkit-001': { edits: golden('src/truncate.js') },
  'invoicing-001': { edits: golden('invoicing/invoice.py') },
  'textkit-002': {
    edits: ['src/truncate.js', 'src/pad.js', 'src/index.js'].map((path) => ({
      path,
      from: 'hallucinator',
    })),
  },
  'invoicing-002': { edits: [{ path: 'invoicing/invoice.py', from: 'hallucinator' }] },
  'shopfront-001': {
    text:
      'Add `sale_price` to the serializer and show it in the card:\n\n```diff\n' +
      '--- a/api/shopfront_api/serializers.py\n+++ b/api/shopfront_api/serializers.py\n' +
      '@@\n-        "price": product.price,\n+        "price": product.price,\n+        "salePrice": product.sale_price,\n```\n',
  },
};

// What `hallucinator` answers the bare agent: the same changes it makes through Nanocoder, as
// whole files. Without the harness it is no better and no worse: the harness delta reads 0.
const BARE_HALLUCINATOR = {
  'textkit-001': { edits: own('src/truncate.js') },
  'textkit-002': { edits: own('src/truncate.js', 'src/pad.js', 'src/index.js') },
  'invoicing-001': { edits: own('invoicing/invoice.py') },
  'invoicing-002': { edits: own('invoicing/invoice.py') },
  'shopfront-001': { edits: BACKEND_ONLY.edits },
};

export const MODELS = {
  competent: {
    description:
      'Scripted stand-in, not a model: the scripted model server replays this fixed script to the ' +
      'real Nanocoder. On every example task it lists and reads the relevant files, applies the ' +
      "task's golden fix (the merged PR's source changes) with string_replace / write_file, runs " +
      'the tests and reports. Expected: pass on every task in both modes. To the bare agent it ' +
      'answers in one reply per task: the golden fix on textkit-001 and invoicing-001, the ' +
      "hallucinator's changes on textkit-002 and invoicing-002, a diff (unusable) on shopfront-001.",
    tasks: CORRECT,
    bare: BARE_COMPETENT,
  },

  'wrong-files': {
    description:
      'Scripted stand-in, not a model: replays a fixed script. On every example task it explores ' +
      'the repository and reads the relevant sources, then edits only README.md (documenting the ' +
      "problem instead of fixing it), a file in no task's required_files. Expected: zero_signal " +
      '(hinted) and insufficient_context_read (navigation), without the context_explosion flag: ' +
      'it reads only a few files.',
    tasks: {
      'textkit-001': readmeOnly(
        'textkit-001',
        'Documented in README.md that `maxLength` does not include the ellipsis and how to fit a fixed-width column.',
      ),
      'textkit-002': readmeOnly(
        'textkit-002',
        'Added a "Wide characters" section to README.md explaining that lengths are counted in code units, not terminal columns.',
      ),
      'invoicing-001': readmeOnly(
        'invoicing-001',
        'Documented in README.md how tax and discounts interact and how to get tax on the discounted amount.',
      ),
      'invoicing-002': readmeOnly(
        'invoicing-002',
        'Added an "Instalment plans" section to README.md describing how to split an invoice total into payments.',
      ),
      'shopfront-001': readmeOnly(
        'shopfront-001',
        'Documented the `sale_price_cents` field and its current limitations in README.md.',
      ),
    },
  },

  wanderer: {
    description:
      'Scripted stand-in, not a model: replays a fixed script. On every example task it reads ten ' +
      "or more files around the repository, none of the task's required_files, then writes the " +
      "same README.md note as wrong-files. Expected: zero_signal (hinted) and " +
      'insufficient_context_read flagged context_explosion (navigation: many files read, no ' +
      'required file changed).',
    tasks: {
      'textkit-001': wander(
        'textkit-001',
        'Documented in README.md that `maxLength` does not include the ellipsis and how to fit a fixed-width column.',
      ),
      'textkit-002': wander(
        'textkit-002',
        'Added a "Wide characters" section to README.md explaining that lengths are counted in code units, not terminal columns.',
      ),
      'invoicing-001': wander(
        'invoicing-001',
        'Documented in README.md how tax and discounts interact and how to get tax on the discounted amount.',
      ),
      'invoicing-002': wander(
        'invoicing-002',
        'Added an "Instalment plans" section to README.md describing how to split an invoice total into payments.',
      ),
      'shopfront-001': wander(
        'shopfront-001',
        'Documented the `sale_price_cents` field and its current limitations in README.md.',
      ),
    },
  },

  hallucinator: {
    description:
      'Scripted stand-in, not a model: replays a fixed script. On textkit-002 and invoicing-002 it ' +
      'edits the required files so the new code calls an API that exists nowhere in the repository ' +
      '(normalizeWidth(), Invoice.amount_outstanding()) -> hallucinated_api. On textkit-001 and ' +
      'invoicing-001 it makes a plausible but incorrect fix -> incorrect_fix. On shopfront-001 it ' +
      'fixes only the Python API -> missing_cross_language_change (navigation) / incorrect_fix (hinted). ' +
      'To the bare agent it answers with the same changes, as whole files.',
    bare: BARE_HALLUCINATOR,
    tasks: {
      'textkit-001': {
        explore: EXPLORE['textkit-001'],
        edits: own('src/truncate.js'),
        final:
          'Fixed `truncate()`: it now keeps one character less of the text to leave room for the ' +
          'ellipsis, so the result fits in `maxLength`.',
      },
      'textkit-002': {
        explore: EXPLORE['textkit-002'].slice(0, 3),
        edits: own('src/truncate.js', 'src/pad.js', 'src/index.js'),
        final:
          '`truncate` and the pad functions now measure non-ASCII text with `normalizeWidth()` ' +
          '(East Asian width aware), and `displayWidth` is exported from the package.',
      },
      'invoicing-001': {
        explore: EXPLORE['invoicing-001'].slice(0, 2),
        edits: own('invoicing/invoice.py'),
        final: '`tax_breakdown()` now computes the tax of each rate on the net minus the discount.',
      },
      'invoicing-002': {
        explore: EXPLORE['invoicing-002'],
        edits: own('invoicing/invoice.py'),
        final:
          'Added `Invoice.payment_schedule(count, *, start, interval_days=30)`, which splits the ' +
          'outstanding amount (`amount_outstanding()`) into `count` instalments of whole cents.',
      },
      'shopfront-001': { ...BACKEND_ONLY, test: undefined },
    },
  },

  'context-hog': {
    description:
      'Scripted stand-in, not a model: replays a fixed script. It lists the repository and reads a ' +
      'couple of files, then the scripted server answers with a context-length error (HTTP 400 ' +
      '"context_http" on textkit-001, textkit-002 and shopfront-001; an SSE error event ' +
      '"context_stream" on invoicing-001 and invoicing-002) before any edit. Expected: ' +
      'context_window_exceeded on every task in both modes.',
    tasks: {
      'textkit-001': {
        explore: [list('.', { recursive: true }), read('README.md'), read('src/truncate.js')],
        fail: 'context_http',
      },
      'textkit-002': {
        explore: [list('.', { recursive: true }), [read('README.md'), read('src/truncate.js')], read('src/pad.js')],
        fail: 'context_http',
      },
      'invoicing-001': {
        explore: [list('.', { recursive: true }), read('invoicing/invoice.py'), read('tests/test_invoice.py')],
        fail: 'context_stream',
      },
      'invoicing-002': {
        explore: [list('.', { recursive: true }), [read('README.md'), read('invoicing/invoice.py')]],
        fail: 'context_stream',
      },
      'shopfront-001': {
        explore: [list('.', { recursive: true }), read('README.md'), read('api/shopfront_api/catalog.py')],
        fail: 'context_http',
      },
    },
  },

  flaky: {
    description:
      'Scripted stand-in, not a model: replays a fixed script whose behaviour depends on the ' +
      'attempt number. On textkit-001 and invoicing-001 (one run each) it applies the golden fix. ' +
      'On textkit-002, invoicing-002 and shopfront-001 it alternates: attempts 1, 3, 5 apply the ' +
      'golden fix (pass); attempts 2, 4 make a wrong fix: textkit-002 leaves pad.js alone ' +
      '(partial_fix_only), invoicing-002 takes every parameter as a keyword option ' +
      '(wrong_abstraction_layer), shopfront-001 fixes only the API (missing_cross_language_change in ' +
      'navigation, incorrect_fix in hinted).',
    tasks: {
      'textkit-001': CORRECT['textkit-001'],
      'invoicing-001': CORRECT['invoicing-001'],
      'textkit-002': {
        variants: [
          CORRECT['textkit-002'],
          {
            explore: EXPLORE['textkit-002'].slice(0, 3),
            edits: own('src/width.js', 'src/truncate.js', 'src/index.js'),
            test: TEST.textkit,
            final:
              'Added `displayWidth()` in `src/width.js`, exported it, and made `truncate()` measure ' +
              'terminal columns.',
          },
        ],
      },
      'invoicing-002': {
        variants: [
          CORRECT['invoicing-002'],
          {
            explore: EXPLORE['invoicing-002'],
            edits: own('invoicing/invoice.py'),
            test: TEST.invoicing,
            final:
              'Added `Invoice.payment_schedule(**options)` taking `count`, `start` and ' +
              '`interval_days` (default 30); the instalments add up to the total.',
          },
        ],
      },
      'shopfront-001': { variants: [CORRECT['shopfront-001'], BACKEND_ONLY] },
    },
  },
};
