import preset from '../../jest.preset.js';

export default {
  ...preset,
  coverageThreshold: { global: { branches: 91, lines: 97 } },
};
