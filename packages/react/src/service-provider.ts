/**
 * `<ServiceProvider>`: one browser client for the components below it, built during render
 * (so server-side rendering and the first paint read its bootstrap values) and started in an
 * effect (so the network only ever runs in the browser).
 */
import {
  createContext,
  createElement,
  useContext,
  useEffect,
  useMemo,
  type ReactNode,
} from './react-api.ts';
import { ServiceClient, type ServiceConfig } from '@svc/client/browser';

const ServiceContext = createContext<ServiceClient | undefined>(undefined);

/** The client's settings as props (`baseUrl`, `apiKey`, `bootstrap`, …), and the children. */
export interface ServiceProviderProps extends ServiceConfig {
  children?: ReactNode;
}

/**
 * Provides a public-key client to the hooks below it. A new `baseUrl` or `apiKey` builds a new
 * client; the other settings are read when the client is built.
 *
 * @throws TypeError (during render) for a secret key or a malformed setting or `bootstrap`.
 */
export function ServiceProvider({ children, ...config }: ServiceProviderProps) {
  const { baseUrl, apiKey } = config;
  // Rebuilt only for another workspace or key (the other settings are read once).
  const client = useMemo(() => new ServiceClient(config), [baseUrl, apiKey]);
  useEffect(() => {
    client.start();
    return () => void client.stop();
  }, [client]);
  return createElement(ServiceContext.Provider, { value: client }, children);
}

/** The client of the nearest {@link ServiceProvider}, for what the hooks do not cover. */
export function useServiceClient(): ServiceClient {
  const client = useContext(ServiceContext);
  if (!client) throw new Error('@svc/react: no <ServiceProvider> above');
  return client;
}
