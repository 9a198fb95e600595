import preset from '../../jest.preset.js';

export default {
  ...preset,
  coverageThreshold: { global: { branches: 97, lines: 99 } },
};
