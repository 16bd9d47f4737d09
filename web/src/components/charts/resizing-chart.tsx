import ReactEChartsCore from 'echarts-for-react/lib/core';
import type { EChartsReactProps } from 'echarts-for-react/lib/types';
import { useEffect, useRef } from 'react';

/**
 * echarts-for-react's chart, made to follow its box's size. The library (3.0) creates its instance at the
 * box's size in pixels, and its size sensor, debounced 60 ms, skips the first resize it reports as the
 * "initial" one: a box that changes size within that window (a phone turned, a window resized while the
 * chart is drawn) left the chart at its old size for good, wider than its box, and the page scrolled
 * sideways (CI read a dashboard canvas 463 px wide on a 375 px phone). Here a ResizeObserver on the chart's
 * element resizes the instance, a frame later, whenever its size is not the element's; the library's own
 * sensor is off.
 */
export function ResizingChart(props: Omit<EChartsReactProps, 'autoResize'>) {
  const chart = useRef<ReactEChartsCore>(null);
  useEffect(() => {
    const element = chart.current?.ele;
    if (!element || typeof ResizeObserver === 'undefined') return;
    let frame = 0;
    const follow = () => {
      frame = 0;
      // The instance of the moment: the library replaces its first one once that has rendered.
      const instance = chart.current?.getEchartsInstance();
      if (!instance || instance.isDisposed()) return;
      if (instance.getWidth() !== element.clientWidth || instance.getHeight() !== element.clientHeight) {
        instance.resize({ width: 'auto', height: 'auto' });
      }
    };
    const observer = new ResizeObserver(() => {
      if (!frame) frame = requestAnimationFrame(follow);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
    };
  }, []);
  return <ReactEChartsCore ref={chart} {...props} autoResize={false} />;
}
