import { describe, expect, it } from '@jest/globals';
import * as internal from '../src/internal.js';

describe('@authlayer/core/internal', () => {
  it('exports exactly what the packages share', () => {
    expect(Object.keys(internal).sort()).toEqual([
      'FetchFailure',
      'MAX_DOCUMENT_BYTES',
      'NAME_MAX_LENGTH',
      'assertSectionRules',
      'authenticateNowOf',
      'claimPath',
      'claimsSchema',
      'clockLeewayOf',
      'configSourceOf',
      'defaultSectionKey',
      'discoverEndpoint',
      'discoveryUrl',
      'envVarName',
      'fetchJsonObject',
      'filePath',
      'inSpan',
      'intRange',
      'isExternalModeName',
      'isPromiseLike',
      'keySetUrl',
      'knownFields',
      'modeSectionOf',
      'readClaim',
      'readSchemeToken',
      'redisUrl',
      'resourceMetadataUrl',
      'sectionJsonSchema',
      'sectionPathOf',
      'sectionSchema',
      'senderConstraintFields',
      'shownInError',
      'splitChallenges',
      'startDecisionSpan',
      'suggestField',
      'text',
      'toClaimsConfig',
      'toSenderConstraintConfig',
      'withResourceAudience',
      'withResourceMetadata',
      'withSpan',
    ]);
  });
});
