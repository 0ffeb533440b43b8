package dev.countersign.git;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Routes every call of a {@link GitWorkspace}: those {@link GitPushes} declares to {@code pushes},
 * all others to {@code local}. Said once by the declaring interface, so a method added to the port
 * is forwarded without anyone writing it again.
 */
record PushRouting(GitWorkspace local, GitPushes pushes) implements InvocationHandler {

  GitWorkspace workspace() {
    return (GitWorkspace)
        Proxy.newProxyInstance(
            GitWorkspace.class.getClassLoader(), new Class<?>[] {GitWorkspace.class}, this);
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    Object target = method.getDeclaringClass() == GitPushes.class ? pushes : local;
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
