/**
 * The parts of React this package uses, imported in this one module: with React external, an
 * app's bundler then writes one `import … from 'react'` for all of them instead of one per
 * module (the bundle budget counts every byte).
 */
export {
  createContext,
  createElement,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
