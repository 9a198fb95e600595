import preset from '../../jest.preset.js';

export default {
  ...preset,
  coverageThreshold: { global: { branches: 90, lines: 90 } },
};
