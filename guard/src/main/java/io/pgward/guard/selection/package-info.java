/**
 * The table selection of a login, and what pgward tells about the selected relations: {@code pgward.relations()},
 * {@code pgward.describe(name)} and the column lists added to undefined- and ambiguous-column errors.
 *
 * <h2>Selection</h2>
 * {@link io.pgward.guard.selection.SelectedNames#parse} reads the configured {@code tables:} list
 * ({@code public.orders}, {@code "Sales 2026".daily}, {@code hr."Salaries"}) with PostgreSQL's identifier rules
 * and rejects, naming the key and index, any entry that is not exactly {@code schema.name}.
 * {@link io.pgward.guard.selection.SelectionResolver#resolve} (or {@link io.pgward.guard.selection.LiveSelection},
 * which keeps the latest result and re-resolves on demand) turns it into a
 * {@link io.pgward.guard.selection.ResolvedSelection}: the relations that exist, in list order, with oid, kind,
 * display name and column names; names that do not exist are left out with a warning; {@code noneExists} when none
 * does. The catalog check consumes that record.
 *
 * <h2>Visible catalog</h2>
 * With the relations, in the same snapshot, the resolution reads a {@link io.pgward.guard.selection.VisibleCatalog}:
 * per system catalog, the OIDs of what the login may see ({@link io.pgward.guard.selection.VisibleSets} has the
 * rules), with a fingerprint to key caches on. Each refresh after a schema change brings a new value. It is for the
 * catalog rewrite (step 2 of {@code docs/filtered-catalog-design.md}); nothing consults it yet.
 *
 * <h2>pgward functions</h2>
 * Both run on a control connection as the login's backend role ({@code set_config('role', ..., true)} inside a
 * transaction that always rolls back) and return {@link io.pgward.guard.selection.LocalRows}, all columns text:
 * <ul>
 *   <li>{@link io.pgward.guard.selection.RelationList#list}: {@code name | kind | description}.</li>
 *   <li>{@link io.pgward.guard.selection.RelationDescriber#describe}: {@code field | value}, one row per field,
 *       column, relationship and sampled column ({@link io.pgward.guard.selection.Description#toRows}), or a
 *       {@link io.pgward.guard.selection.DescribeResult.Refused} whose {@link io.pgward.guard.Verdict.Refuse} is sent
 *       as an ErrorResponse.</li>
 * </ul>
 * Without a selection, relations() lists every readable relation and describe() describes any of them.
 *
 * <h2>Column errors</h2>
 * {@link io.pgward.guard.selection.ColumnHints#appendTo} is pure: statement text, standard_conforming_strings and
 * the resolved selection (whose relations carry their column names, refreshed with every resolution) give the
 * primary message to send for a 42703 or 42702 ErrorResponse.
 */
package io.pgward.guard.selection;
