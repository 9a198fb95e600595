import { describe, expect, it } from '@jest/globals';
import * as internal from '../src/internal.js';

describe('@authlayer/core/internal', () => {
  it('exports exactly what the packages share', () => {
    expect(Object.keys(internal).sort()).toEqual([
      'FetchFailure',
      'MAX_DOCUMENT_BYTES',
      'NAME_MAX_LENGTH',
      'authenticateNowOf',
      'clockLeewayOf',
      'configSourceOf',
      'defaultSectionKey',
      'discoverEndpoint',
      'discoveryUrl',
      'envVarName',
      'fetchJsonObject',
      'filePath',
      'inSpan',
      'isExternalModeName',
      'isPromiseLike',
      'keyFilesOf',
      'knownFields',
      'readClaim',
      'readSchemeToken',
      'resourceMetadataUrl',
      'sectionSchema',
      'shownInError',
      'splitChallenges',
      'startDecisionSpan',
      'suggestField',
      'withResourceMetadata',
      'withSpan',
    ]);
  });
});
