import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchProducts, toProduct } from '../src/api.js';

const trailRunner = {
  id: 'p-100',
  slug: 'trail-runner-2',
  name: 'Trail Runner 2',
  price: { amount: 11900, currency: 'EUR' },
  in_stock: true,
  image_url: null,
};

describe('toProduct', () => {
  it('maps the API fields to the client model', () => {
    assert.deepEqual(toProduct(trailRunner), {
      id: 'p-100',
      slug: 'trail-runner-2',
      name: 'Trail Runner 2',
      price: { amount: 11900, currency: 'EUR' },
      salePrice: null,
      inStock: true,
      imageUrl: null,
    });
  });
});

describe('fetchProducts', () => {
  it('requests a page and maps the products', async () => {
    let requested;
    const fetchImpl = async (url) => {
      requested = url;
      return { ok: true, status: 200, json: async () => ({ products: [trailRunner], page: 2, total: 21 }) };
    };
    const result = await fetchProducts('http://shop.test', { query: 'trail', page: 2, fetchImpl });
    assert.equal(requested, 'http://shop.test/api/products?page=2&q=trail');
    assert.equal(result.products[0].name, 'Trail Runner 2');
    assert.equal(result.total, 21);
  });

  it('reports HTTP errors', async () => {
    const fetchImpl = async () => ({ ok: false, status: 503, json: async () => ({}) });
    await assert.rejects(fetchProducts('http://shop.test', { fetchImpl }), /HTTP 503/);
  });
});
