import preset from '../../jest.preset.js';

export default {
  ...preset,
  coverageThreshold: { global: { branches: 96, lines: 98 } },
};
