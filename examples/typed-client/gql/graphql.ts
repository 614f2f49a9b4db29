/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type NearbyResortsQueryVariables = Exact<{
  zip: string;
  radiusMiles?: number | null | undefined;
}>;


export type NearbyResortsQuery = { zip: { city: string, stateCode: string, nearbyResorts: Array<{ distanceMiles: number, resort: { name: string, conditions: { date: string, snowDepthBase: number, newSnow24h: number, units: { depth: string } } } }> | null } | null };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const NearbyResortsDocument = new TypedDocumentString(`
    query NearbyResorts($zip: String!, $radiusMiles: Float) {
  zip(zip: $zip) {
    city
    stateCode
    nearbyResorts(radiusMiles: $radiusMiles, limit: 5) {
      distanceMiles
      resort {
        name
        conditions(units: IMPERIAL) {
          date
          snowDepthBase
          newSnow24h
          units {
            depth
          }
        }
      }
    }
  }
}
    `, {"hash":"sha256:6bc4de25335fb29a5c7ec451113f23272e8fa1fbbc819fcec81e6480a86ad30a"}) as unknown as TypedDocumentString<NearbyResortsQuery, NearbyResortsQueryVariables>;