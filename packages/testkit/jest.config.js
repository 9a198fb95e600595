import preset from '../../jest.preset.js';

export default {
  ...preset,
  coverageThreshold: { global: { branches: 98, lines: 98 } },
};
