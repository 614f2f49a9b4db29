/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query A { zip(zip: \"05401\") { city } }": typeof types.ADocument,
    "query B { zip(zip: \"81657\") { city } }": typeof types.BDocument,
    "query ApqCity($zip: String!) { zip(zip: $zip) { zip city } }": typeof types.ApqCityDocument,
    "\n  query TestResort($id: ID!, $units: Units) {\n    resort(id: $id) {\n      id name countryCode continent inventorySource\n      location { lat lng }\n      elevation(units: $units) { base summit vertical unit }\n      conditions(units: $units) {\n        date source status statusReason seasonOpens seasonCloses snowDepthBase snowDepthSummit newSnow24h newSnow72h\n        newSnow7d seasonSnowfall surface openTrails totalTrails openTrailsPct openLifts totalLifts temperature\n        units { system depth }\n      }\n      weather(units: $units) { source current { temperature summary } forecast { date precipitationProbability snowLine base { tempMin tempMax } summit { snowfall windGust } } }\n      trailSummary { total open byDifficulty { difficulty total open } }\n      liftSummary { total open byStatus { status count } }\n    }\n  }\n": typeof types.TestResortDocument,
    "\n  query TestResortList($limit: Int, $offset: Int) {\n    resorts(paging: { limit: $limit, offset: $offset }) {\n      total\n      resorts {\n        id\n        trails { name status }\n        lifts { name status }\n        weather { forecast { date } }\n        conditions { snowDepthBase openTrails }\n      }\n    }\n  }\n": typeof types.TestResortListDocument,
    "\n  query TestResortTypename { __typename }\n": typeof types.TestResortTypenameDocument,
    "\n  query TestCross {\n    zip(zip: \"81657\") { city nearbyResorts(radiusMiles: 30, limit: 5) { distanceMiles resort { id location { lat lng } } } }\n    resort(id: \"stowe\") { nearbyZips(radiusMiles: 10, limit: 5) { zip stateCode distanceMiles } }\n    far: resort(id: \"zermatt\") { nearbyZips { zip } }\n  }\n": typeof types.TestCrossDocument,
    "\n  query TestRankings {\n    topSnow(limit: 5) { resorts { rank resort { id } newSnow24h newSnow72h } }\n    openNow(minOpenTrailsPct: 75) { count resorts { openTrailsPct } }\n    stormWatch { threshold48h resorts { snowfall48h } }\n    snowInsights(days: 14) { days from to network { resorts averageSnowfall } resorts { resort { id } totalSnowfall } }\n    compareResorts(id: \"alta\", with: \"snowbird\") { distanceKm differences { summitElevation } }\n    health { status timestamp }\n  }\n": typeof types.TestRankingsDocument,
    "\n  query TestBadArgs($limit: Int, $days: Int) {\n    topSnow(limit: $limit) { resorts { rank } }\n    snowInsights(days: $days) { days }\n  }\n": typeof types.TestBadArgsDocument,
    "\n  query TestZip($zip: String!) {\n    zip(zip: $zip) {\n      zip city stateCode stateName county countyFips lat lng timezone lastUpdated\n      state { stateCode stateName zipCount }\n      nearby(radiusMiles: 5, limit: 3) { zip distanceMiles }\n    }\n  }\n": typeof types.TestZipDocument,
    "\n  query TestNearby($zip: String!, $radiusMiles: Float, $limit: Int) {\n    nearbyZips(zip: $zip, radiusMiles: $radiusMiles, limit: $limit) {\n      center { zip lat lng }\n      radiusMiles\n      results { zip city stateCode county lat lng distanceMiles }\n    }\n  }\n": typeof types.TestNearbyDocument,
    "\n  query TestState($code: String!, $limit: Int, $offset: Int) {\n    state(code: $code) { stateCode stateName zipCount zipcodes(limit: $limit, offset: $offset) { zip } }\n  }\n": typeof types.TestStateDocument,
    "\n  query TestCity($name: String!, $state: String) {\n    city(name: $name, state: $state) { city stateCode count zipcodes { zip stateCode } }\n  }\n": typeof types.TestCityDocument,
    "\n  query TestTypename { __typename }\n": typeof types.TestTypenameDocument,
    "\n  query TestStats { zipStats { totalZips totalStates } states { stateCode } }\n": typeof types.TestStatsDocument,
    "\n  query TestWide($limit: Int) {\n    states {\n      stateCode\n      zipcodes(limit: $limit) {\n        zip\n        state { stateName zipCount }\n        nearby(radiusMiles: 10, limit: 3) { zip details { countyFips state { fips } } }\n      }\n    }\n  }\n": typeof types.TestWideDocument,
};
const documents: Documents = {
    "query A { zip(zip: \"05401\") { city } }": types.ADocument,
    "query B { zip(zip: \"81657\") { city } }": types.BDocument,
    "query ApqCity($zip: String!) { zip(zip: $zip) { zip city } }": types.ApqCityDocument,
    "\n  query TestResort($id: ID!, $units: Units) {\n    resort(id: $id) {\n      id name countryCode continent inventorySource\n      location { lat lng }\n      elevation(units: $units) { base summit vertical unit }\n      conditions(units: $units) {\n        date source status statusReason seasonOpens seasonCloses snowDepthBase snowDepthSummit newSnow24h newSnow72h\n        newSnow7d seasonSnowfall surface openTrails totalTrails openTrailsPct openLifts totalLifts temperature\n        units { system depth }\n      }\n      weather(units: $units) { source current { temperature summary } forecast { date precipitationProbability snowLine base { tempMin tempMax } summit { snowfall windGust } } }\n      trailSummary { total open byDifficulty { difficulty total open } }\n      liftSummary { total open byStatus { status count } }\n    }\n  }\n": types.TestResortDocument,
    "\n  query TestResortList($limit: Int, $offset: Int) {\n    resorts(paging: { limit: $limit, offset: $offset }) {\n      total\n      resorts {\n        id\n        trails { name status }\n        lifts { name status }\n        weather { forecast { date } }\n        conditions { snowDepthBase openTrails }\n      }\n    }\n  }\n": types.TestResortListDocument,
    "\n  query TestResortTypename { __typename }\n": types.TestResortTypenameDocument,
    "\n  query TestCross {\n    zip(zip: \"81657\") { city nearbyResorts(radiusMiles: 30, limit: 5) { distanceMiles resort { id location { lat lng } } } }\n    resort(id: \"stowe\") { nearbyZips(radiusMiles: 10, limit: 5) { zip stateCode distanceMiles } }\n    far: resort(id: \"zermatt\") { nearbyZips { zip } }\n  }\n": types.TestCrossDocument,
    "\n  query TestRankings {\n    topSnow(limit: 5) { resorts { rank resort { id } newSnow24h newSnow72h } }\n    openNow(minOpenTrailsPct: 75) { count resorts { openTrailsPct } }\n    stormWatch { threshold48h resorts { snowfall48h } }\n    snowInsights(days: 14) { days from to network { resorts averageSnowfall } resorts { resort { id } totalSnowfall } }\n    compareResorts(id: \"alta\", with: \"snowbird\") { distanceKm differences { summitElevation } }\n    health { status timestamp }\n  }\n": types.TestRankingsDocument,
    "\n  query TestBadArgs($limit: Int, $days: Int) {\n    topSnow(limit: $limit) { resorts { rank } }\n    snowInsights(days: $days) { days }\n  }\n": types.TestBadArgsDocument,
    "\n  query TestZip($zip: String!) {\n    zip(zip: $zip) {\n      zip city stateCode stateName county countyFips lat lng timezone lastUpdated\n      state { stateCode stateName zipCount }\n      nearby(radiusMiles: 5, limit: 3) { zip distanceMiles }\n    }\n  }\n": types.TestZipDocument,
    "\n  query TestNearby($zip: String!, $radiusMiles: Float, $limit: Int) {\n    nearbyZips(zip: $zip, radiusMiles: $radiusMiles, limit: $limit) {\n      center { zip lat lng }\n      radiusMiles\n      results { zip city stateCode county lat lng distanceMiles }\n    }\n  }\n": types.TestNearbyDocument,
    "\n  query TestState($code: String!, $limit: Int, $offset: Int) {\n    state(code: $code) { stateCode stateName zipCount zipcodes(limit: $limit, offset: $offset) { zip } }\n  }\n": types.TestStateDocument,
    "\n  query TestCity($name: String!, $state: String) {\n    city(name: $name, state: $state) { city stateCode count zipcodes { zip stateCode } }\n  }\n": types.TestCityDocument,
    "\n  query TestTypename { __typename }\n": types.TestTypenameDocument,
    "\n  query TestStats { zipStats { totalZips totalStates } states { stateCode } }\n": types.TestStatsDocument,
    "\n  query TestWide($limit: Int) {\n    states {\n      stateCode\n      zipcodes(limit: $limit) {\n        zip\n        state { stateName zipCount }\n        nearby(radiusMiles: 10, limit: 3) { zip details { countyFips state { fips } } }\n      }\n    }\n  }\n": types.TestWideDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query A { zip(zip: \"05401\") { city } }"): (typeof documents)["query A { zip(zip: \"05401\") { city } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query B { zip(zip: \"81657\") { city } }"): (typeof documents)["query B { zip(zip: \"81657\") { city } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ApqCity($zip: String!) { zip(zip: $zip) { zip city } }"): (typeof documents)["query ApqCity($zip: String!) { zip(zip: $zip) { zip city } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestResort($id: ID!, $units: Units) {\n    resort(id: $id) {\n      id name countryCode continent inventorySource\n      location { lat lng }\n      elevation(units: $units) { base summit vertical unit }\n      conditions(units: $units) {\n        date source status statusReason seasonOpens seasonCloses snowDepthBase snowDepthSummit newSnow24h newSnow72h\n        newSnow7d seasonSnowfall surface openTrails totalTrails openTrailsPct openLifts totalLifts temperature\n        units { system depth }\n      }\n      weather(units: $units) { source current { temperature summary } forecast { date precipitationProbability snowLine base { tempMin tempMax } summit { snowfall windGust } } }\n      trailSummary { total open byDifficulty { difficulty total open } }\n      liftSummary { total open byStatus { status count } }\n    }\n  }\n"): (typeof documents)["\n  query TestResort($id: ID!, $units: Units) {\n    resort(id: $id) {\n      id name countryCode continent inventorySource\n      location { lat lng }\n      elevation(units: $units) { base summit vertical unit }\n      conditions(units: $units) {\n        date source status statusReason seasonOpens seasonCloses snowDepthBase snowDepthSummit newSnow24h newSnow72h\n        newSnow7d seasonSnowfall surface openTrails totalTrails openTrailsPct openLifts totalLifts temperature\n        units { system depth }\n      }\n      weather(units: $units) { source current { temperature summary } forecast { date precipitationProbability snowLine base { tempMin tempMax } summit { snowfall windGust } } }\n      trailSummary { total open byDifficulty { difficulty total open } }\n      liftSummary { total open byStatus { status count } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestResortList($limit: Int, $offset: Int) {\n    resorts(paging: { limit: $limit, offset: $offset }) {\n      total\n      resorts {\n        id\n        trails { name status }\n        lifts { name status }\n        weather { forecast { date } }\n        conditions { snowDepthBase openTrails }\n      }\n    }\n  }\n"): (typeof documents)["\n  query TestResortList($limit: Int, $offset: Int) {\n    resorts(paging: { limit: $limit, offset: $offset }) {\n      total\n      resorts {\n        id\n        trails { name status }\n        lifts { name status }\n        weather { forecast { date } }\n        conditions { snowDepthBase openTrails }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestResortTypename { __typename }\n"): (typeof documents)["\n  query TestResortTypename { __typename }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestCross {\n    zip(zip: \"81657\") { city nearbyResorts(radiusMiles: 30, limit: 5) { distanceMiles resort { id location { lat lng } } } }\n    resort(id: \"stowe\") { nearbyZips(radiusMiles: 10, limit: 5) { zip stateCode distanceMiles } }\n    far: resort(id: \"zermatt\") { nearbyZips { zip } }\n  }\n"): (typeof documents)["\n  query TestCross {\n    zip(zip: \"81657\") { city nearbyResorts(radiusMiles: 30, limit: 5) { distanceMiles resort { id location { lat lng } } } }\n    resort(id: \"stowe\") { nearbyZips(radiusMiles: 10, limit: 5) { zip stateCode distanceMiles } }\n    far: resort(id: \"zermatt\") { nearbyZips { zip } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestRankings {\n    topSnow(limit: 5) { resorts { rank resort { id } newSnow24h newSnow72h } }\n    openNow(minOpenTrailsPct: 75) { count resorts { openTrailsPct } }\n    stormWatch { threshold48h resorts { snowfall48h } }\n    snowInsights(days: 14) { days from to network { resorts averageSnowfall } resorts { resort { id } totalSnowfall } }\n    compareResorts(id: \"alta\", with: \"snowbird\") { distanceKm differences { summitElevation } }\n    health { status timestamp }\n  }\n"): (typeof documents)["\n  query TestRankings {\n    topSnow(limit: 5) { resorts { rank resort { id } newSnow24h newSnow72h } }\n    openNow(minOpenTrailsPct: 75) { count resorts { openTrailsPct } }\n    stormWatch { threshold48h resorts { snowfall48h } }\n    snowInsights(days: 14) { days from to network { resorts averageSnowfall } resorts { resort { id } totalSnowfall } }\n    compareResorts(id: \"alta\", with: \"snowbird\") { distanceKm differences { summitElevation } }\n    health { status timestamp }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestBadArgs($limit: Int, $days: Int) {\n    topSnow(limit: $limit) { resorts { rank } }\n    snowInsights(days: $days) { days }\n  }\n"): (typeof documents)["\n  query TestBadArgs($limit: Int, $days: Int) {\n    topSnow(limit: $limit) { resorts { rank } }\n    snowInsights(days: $days) { days }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestZip($zip: String!) {\n    zip(zip: $zip) {\n      zip city stateCode stateName county countyFips lat lng timezone lastUpdated\n      state { stateCode stateName zipCount }\n      nearby(radiusMiles: 5, limit: 3) { zip distanceMiles }\n    }\n  }\n"): (typeof documents)["\n  query TestZip($zip: String!) {\n    zip(zip: $zip) {\n      zip city stateCode stateName county countyFips lat lng timezone lastUpdated\n      state { stateCode stateName zipCount }\n      nearby(radiusMiles: 5, limit: 3) { zip distanceMiles }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestNearby($zip: String!, $radiusMiles: Float, $limit: Int) {\n    nearbyZips(zip: $zip, radiusMiles: $radiusMiles, limit: $limit) {\n      center { zip lat lng }\n      radiusMiles\n      results { zip city stateCode county lat lng distanceMiles }\n    }\n  }\n"): (typeof documents)["\n  query TestNearby($zip: String!, $radiusMiles: Float, $limit: Int) {\n    nearbyZips(zip: $zip, radiusMiles: $radiusMiles, limit: $limit) {\n      center { zip lat lng }\n      radiusMiles\n      results { zip city stateCode county lat lng distanceMiles }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestState($code: String!, $limit: Int, $offset: Int) {\n    state(code: $code) { stateCode stateName zipCount zipcodes(limit: $limit, offset: $offset) { zip } }\n  }\n"): (typeof documents)["\n  query TestState($code: String!, $limit: Int, $offset: Int) {\n    state(code: $code) { stateCode stateName zipCount zipcodes(limit: $limit, offset: $offset) { zip } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestCity($name: String!, $state: String) {\n    city(name: $name, state: $state) { city stateCode count zipcodes { zip stateCode } }\n  }\n"): (typeof documents)["\n  query TestCity($name: String!, $state: String) {\n    city(name: $name, state: $state) { city stateCode count zipcodes { zip stateCode } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestTypename { __typename }\n"): (typeof documents)["\n  query TestTypename { __typename }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestStats { zipStats { totalZips totalStates } states { stateCode } }\n"): (typeof documents)["\n  query TestStats { zipStats { totalZips totalStates } states { stateCode } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TestWide($limit: Int) {\n    states {\n      stateCode\n      zipcodes(limit: $limit) {\n        zip\n        state { stateName zipCount }\n        nearby(radiusMiles: 10, limit: 3) { zip details { countyFips state { fips } } }\n      }\n    }\n  }\n"): (typeof documents)["\n  query TestWide($limit: Int) {\n    states {\n      stateCode\n      zipcodes(limit: $limit) {\n        zip\n        state { stateName zipCount }\n        nearby(radiusMiles: 10, limit: 3) { zip details { countyFips state { fips } } }\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;